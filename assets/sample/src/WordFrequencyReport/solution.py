import re


class WordFrequencyReport:
    def __init__(self, stopwords):
        self.stopwords = [word.lower() for word in stopwords]

    def report(self, text, n):
        lines = []
        for rank, (word, count) in enumerate(self.top_words(text, n), start=1):
            lines.append(f'{rank}. {word} ({count})')
        return '\n'.join(lines)

    def top_words(self, text, n):
        counts = self.count_words(text)
        ranked = sorted(counts.items(), key=lambda pair: (-pair[1], pair[0]))
        return ranked[:n]

    def count_words(self, text):
        counts = {}
        for word in self.tokenize(text):
            counts[word] = counts.get(word, 0) + 1
        return counts

    def tokenize(self, text):
        words = re.findall(r"[a-z]+(?:'[a-z]+)?", text.lower())
        return [word for word in words if word not in self.stopwords]

    def add_stopword(self, word):
        word = word.lower()
        if word not in self.stopwords:
            self.stopwords.append(word)
