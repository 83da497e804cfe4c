import re


class WordFrequencyReport:
    """
    A word-frequency reporter: it counts the words of a text, leaving out a list of stopwords, and reports the most frequent ones.
    """

    def __init__(self, stopwords):
        """
        Store the stopwords in lower case.
        :param stopwords: list[str], the words to leave out of every count
        :ivar stopwords: list[str], the stopwords, in lower case
        """
        self.stopwords = [word.lower() for word in stopwords]

    def report(self, text, n):
        """
        Format the n most frequent words of a text as numbered lines "rank. word (count)".
        :param text: str, the text to analyse
        :param n: int, the largest number of lines to report
        :return: str, the lines joined by newlines, or an empty string when the text has no words
        >>> reporter = WordFrequencyReport(['the'])
        >>> print(reporter.report('The cat saw the dog and the cat ran', 2))
        1. cat (2)
        2. and (1)
        """

    def top_words(self, text, n):
        """
        Return the n most frequent words of a text with their counts, most frequent first, ties in alphabetical order.
        :param text: str, the text to analyse
        :param n: int, the largest number of words to return
        :return: list[tuple[str, int]], the (word, count) pairs
        >>> reporter = WordFrequencyReport([])
        >>> reporter.top_words('b a b c a b', 2)
        [('b', 3), ('a', 2)]
        """

    def count_words(self, text):
        """
        Count how often each word of a text occurs, stopwords excluded.
        :param text: str, the text to analyse
        :return: dict[str, int], the number of occurrences by word, in order of first occurrence
        >>> reporter = WordFrequencyReport(['a'])
        >>> reporter.count_words('A rose is a rose')
        {'rose': 2, 'is': 1}
        """

    def tokenize(self, text):
        """
        Split a text into lower-case words, dropping punctuation, digits and stopwords.
        A word is a run of letters, optionally joined to more letters by one apostrophe, as in "don't".
        :param text: str, the text to split
        :return: list[str], the words in text order
        >>> reporter = WordFrequencyReport(['the'])
        >>> reporter.tokenize("The cat's toy, the ball!")
        ["cat's", 'toy', 'ball']
        """

    def add_stopword(self, word):
        """
        Add a word, in lower case, to the stopwords unless it is already there.
        :param word: str, the word to leave out from now on
        :return: None
        >>> reporter = WordFrequencyReport(['the'])
        >>> reporter.add_stopword('And')
        >>> reporter.stopwords
        ['the', 'and']
        """
