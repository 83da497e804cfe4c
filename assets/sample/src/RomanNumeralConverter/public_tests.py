import unittest


class RomanNumeralConverterTestToRomanPublic(unittest.TestCase):
    def test_to_roman_1(self):
        converter = RomanNumeralConverter()
        self.assertEqual(converter.to_roman(14), 'XIV')

    def test_to_roman_2(self):
        converter = RomanNumeralConverter()
        numeral = converter.to_roman(3888)
        self.assertEqual(len(numeral), 15)

    def test_to_roman_3(self):
        converter = RomanNumeralConverter()
        self.assertRaises(ValueError, converter.to_roman, -1)


class RomanNumeralConverterTestFromRomanPublic(unittest.TestCase):
    def test_from_roman_1(self):
        converter = RomanNumeralConverter()
        value = converter.from_roman('XLII')
        self.assertEqual(value, 42)

    def test_from_roman_2(self):
        converter = RomanNumeralConverter()
        self.assertEqual(converter.from_roman('mmxxiv'), 2024)


class RomanNumeralConverterTestSymbolValuePublic(unittest.TestCase):
    def test_symbol_value_1(self):
        converter = RomanNumeralConverter()
        value = converter.symbol_value('D')
        self.assertEqual(value, 500)

    def test_symbol_value_2(self):
        converter = RomanNumeralConverter()
        self.assertRaises(ValueError, converter.symbol_value, '')


class RomanNumeralConverterTestIsCanonicalPublic(unittest.TestCase):
    def test_is_canonical_1(self):
        converter = RomanNumeralConverter()
        self.assertTrue(converter.is_canonical('MCMXC'))

    def test_is_canonical_2(self):
        converter = RomanNumeralConverter()
        self.assertFalse(converter.is_canonical('xc'))
