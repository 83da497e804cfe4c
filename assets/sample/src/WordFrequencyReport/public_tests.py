import unittest


class WordFrequencyReportTestReportPublic(unittest.TestCase):
    def test_report_1(self):
        reporter = WordFrequencyReport([])
        self.assertEqual(reporter.report('hi hi bye', 2), '1. hi (2)\n2. bye (1)')

    def test_report_2(self):
        reporter = WordFrequencyReport(['is'])
        lines = reporter.report('it is what it is', 10).split('\n')
        self.assertEqual(len(lines), 2)
        self.assertEqual(lines[0], '1. it (2)')


class WordFrequencyReportTestTopWordsPublic(unittest.TestCase):
    def test_top_words_1(self):
        reporter = WordFrequencyReport(['and'])
        ranked = reporter.top_words('salt and pepper and salt', 1)
        self.assertEqual(ranked, [('salt', 2)])

    def test_top_words_2(self):
        reporter = WordFrequencyReport([])
        ranked = reporter.top_words('b a', 2)
        self.assertEqual(ranked[0][0], 'a')


class WordFrequencyReportTestCountWordsPublic(unittest.TestCase):
    def test_count_words_1(self):
        reporter = WordFrequencyReport(['a'])
        counts = reporter.count_words('a b a c b')
        self.assertEqual(counts.get('a', 0), 0)
        self.assertEqual(counts['b'], 2)

    def test_count_words_2(self):
        reporter = WordFrequencyReport([])
        self.assertEqual(sum(reporter.count_words('one two two').values()), 3)


class WordFrequencyReportTestTokenizePublic(unittest.TestCase):
    def test_tokenize_1(self):
        reporter = WordFrequencyReport(['is'])
        words = reporter.tokenize('Python is fun')
        self.assertEqual(len(words), 2)
        self.assertEqual(words[0], 'python')

    def test_tokenize_2(self):
        reporter = WordFrequencyReport([])
        self.assertEqual(' '.join(reporter.tokenize('rock-n-roll')), 'rock n roll')


class WordFrequencyReportTestAddStopwordPublic(unittest.TestCase):
    def test_add_stopword_1(self):
        reporter = WordFrequencyReport([])
        reporter.add_stopword('Is')
        self.assertEqual(reporter.stopwords, ['is'])

    def test_add_stopword_2(self):
        reporter = WordFrequencyReport(['or'])
        reporter.add_stopword('or')
        self.assertEqual(reporter.stopwords.count('or'), 1)
