import unittest


class RomanNumeralConverterTestToRoman(unittest.TestCase):
    def setUp(self):
        self.converter = RomanNumeralConverter()

    def test_to_roman_1(self):
        self.assertEqual(self.converter.to_roman(3999), 'MMMCMXCIX')

    def test_to_roman_2(self):
        numerals = [self.converter.to_roman(number) for number in (4, 9, 40, 90, 400, 900)]
        self.assertEqual(numerals, ['IV', 'IX', 'XL', 'XC', 'CD', 'CM'])

    def test_to_roman_3(self):
        with self.assertRaises(ValueError):
            self.converter.to_roman(0)

    def test_to_roman_4(self):
        self.assertRaises(ValueError, self.converter.to_roman, 4000)

    def test_to_roman_5(self):
        numeral = self.converter.to_roman(2024)
        self.assertTrue(numeral.startswith('MM'))
        self.assertEqual(numeral, 'MMXXIV')


class RomanNumeralConverterTestFromRoman(unittest.TestCase):
    def setUp(self):
        self.converter = RomanNumeralConverter()

    def test_from_roman_1(self):
        self.assertEqual(self.converter.from_roman('MCMLXXXIV'), 1984)

    def test_from_roman_2(self):
        total = self.converter.from_roman('')
        self.assertEqual(total, 0)

    def test_from_roman_3(self):
        values = [self.converter.from_roman(text) for text in ('iv', 'Vi', 'IIII')]
        self.assertEqual(values, [4, 6, 4])

    def test_from_roman_4(self):
        with self.assertRaises(ValueError):
            self.converter.from_roman('X1')


class RomanNumeralConverterTestSymbolValue(unittest.TestCase):
    def setUp(self):
        self.converter = RomanNumeralConverter()

    def test_symbol_value_1(self):
        self.assertEqual(self.converter.symbol_value('M'), 1000)

    def test_symbol_value_2(self):
        values = [self.converter.symbol_value(symbol) for symbol in 'IVXLCDM']
        self.assertEqual(values, [1, 5, 10, 50, 100, 500, 1000])

    def test_symbol_value_3(self):
        self.assertRaises(ValueError, self.converter.symbol_value, 'v')

    def test_symbol_value_4(self):
        with self.assertRaises(ValueError):
            self.converter.symbol_value('Z')


class RomanNumeralConverterTestIsCanonical(unittest.TestCase):
    def setUp(self):
        self.converter = RomanNumeralConverter()

    def test_is_canonical_1(self):
        self.assertTrue(self.converter.is_canonical('XLII'))

    def test_is_canonical_2(self):
        self.assertFalse(self.converter.is_canonical('VV'))

    def test_is_canonical_3(self):
        results = [self.converter.is_canonical(text) for text in ('', 'mmxx', 'MMXX')]
        self.assertEqual(results, [False, False, True])

    def test_is_canonical_4(self):
        self.assertRaises(ValueError, self.converter.is_canonical, 'ABC')


class RomanNumeralConverterTestMain(unittest.TestCase):
    def test_main_1(self):
        converter = RomanNumeralConverter()
        self.assertEqual(converter.symbol_value('C'), 100)
        self.assertEqual(converter.from_roman('xcix'), 99)
        self.assertEqual(converter.to_roman(99), 'XCIX')
        self.assertFalse(converter.is_canonical('IC'))
        self.assertTrue(converter.is_canonical('XCIX'))
