import unittest


class WordFrequencyReportTestReport(unittest.TestCase):
    def setUp(self):
        self.reporter = WordFrequencyReport(['the', 'a'])

    def test_report_1(self):
        text = 'the sun and the moon and a star'
        self.assertEqual(self.reporter.report(text, 2), '1. and (2)\n2. moon (1)')

    def test_report_2(self):
        self.assertEqual(self.reporter.report('the a the', 3), '')

    def test_report_3(self):
        lines = self.reporter.report('x y z x y x', 5).splitlines()
        self.assertEqual(lines, ['1. x (3)', '2. y (2)', '3. z (1)'])

    def test_report_4(self):
        result = self.reporter.report('Go go GO stop', 1)
        self.assertTrue(result.startswith('1. go (3)'))
        self.assertNotIn('\n', result)


class WordFrequencyReportTestTopWords(unittest.TestCase):
    def test_top_words_1(self):
        reporter = WordFrequencyReport([])
        self.assertEqual(reporter.top_words('red blue red green red blue', 2), [('red', 3), ('blue', 2)])

    def test_top_words_2(self):
        reporter = WordFrequencyReport([])
        ranked = reporter.top_words('pear apple fig', 3)
        self.assertEqual([word for word, _ in ranked], ['apple', 'fig', 'pear'])

    def test_top_words_3(self):
        reporter = WordFrequencyReport(['of'])
        self.assertEqual(len(reporter.top_words('one of two of three', 10)), 3)

    def test_top_words_4(self):
        reporter = WordFrequencyReport([])
        self.assertFalse(reporter.top_words('a b c', 0))


class WordFrequencyReportTestCountWords(unittest.TestCase):
    def test_count_words_1(self):
        reporter = WordFrequencyReport([])
        self.assertEqual(reporter.count_words('to be or not to be'), {'to': 2, 'be': 2, 'or': 1, 'not': 1})

    def test_count_words_2(self):
        reporter = WordFrequencyReport(['to'])
        counts = reporter.count_words('To be or not to be')
        self.assertNotIn('to', counts)
        self.assertEqual(counts['be'], 2)

    def test_count_words_3(self):
        reporter = WordFrequencyReport([])
        self.assertEqual(list(reporter.count_words('b a b')), ['b', 'a'])

    def test_count_words_4(self):
        reporter = WordFrequencyReport([])
        counts = reporter.count_words('Echo echo ECHO')
        self.assertEqual(counts, {'echo': 3})


class WordFrequencyReportTestTokenize(unittest.TestCase):
    def test_tokenize_1(self):
        reporter = WordFrequencyReport([])
        self.assertEqual(reporter.tokenize('Hello, World!'), ['hello', 'world'])

    def test_tokenize_2(self):
        reporter = WordFrequencyReport(['a', 'the'])
        words = reporter.tokenize('The fox and a hen')
        self.assertEqual(words, ['fox', 'and', 'hen'])

    def test_tokenize_3(self):
        reporter = WordFrequencyReport([])
        self.assertIn("don't", reporter.tokenize("Don't panic"))

    def test_tokenize_4(self):
        reporter = WordFrequencyReport([])
        self.assertFalse(reporter.tokenize('... 42 !!!'))

    def test_tokenize_5(self):
        reporter = WordFrequencyReport(['THE'])
        self.assertNotIn('the', reporter.tokenize('the end of THE story'))


class WordFrequencyReportTestAddStopword(unittest.TestCase):
    def setUp(self):
        self.reporter = WordFrequencyReport(['the'])

    def test_add_stopword_1(self):
        self.reporter.add_stopword('of')
        self.assertEqual(self.reporter.stopwords, ['the', 'of'])

    def test_add_stopword_2(self):
        self.reporter.add_stopword('THE')
        self.assertEqual(len(self.reporter.stopwords), 1)

    def test_add_stopword_3(self):
        self.reporter.add_stopword('And')
        self.assertIn('and', self.reporter.stopwords)
        self.assertNotIn('And', self.reporter.stopwords)

    def test_add_stopword_4(self):
        self.assertIsNone(self.reporter.add_stopword('x'))


class WordFrequencyReportTestMain(unittest.TestCase):
    def test_main_1(self):
        reporter = WordFrequencyReport(['a'])
        text = 'A dog and a cat and a bird'
        self.assertEqual(reporter.tokenize(text), ['dog', 'and', 'cat', 'and', 'bird'])
        self.assertEqual(reporter.count_words(text)['and'], 2)
        reporter.add_stopword('and')
        self.assertEqual(reporter.top_words(text, 1), [('bird', 1)])
        self.assertEqual(reporter.report(text, 2), '1. bird (1)\n2. cat (1)')
