class RomanNumeralConverter:
    """
    A converter between integers and Roman numerals written with the symbols I, V, X, L, C, D and M.
    """

    def __init__(self):
        """
        Prepare the table of values and symbols used to write numerals, largest value first.
        :ivar pairs: list[tuple[int, str]], the (value, symbol) pairs, subtractive pairs such as (900, "CM") included
        """
        self.pairs = [(1000, 'M'), (900, 'CM'), (500, 'D'), (400, 'CD'), (100, 'C'), (90, 'XC'),
                      (50, 'L'), (40, 'XL'), (10, 'X'), (9, 'IX'), (5, 'V'), (4, 'IV'), (1, 'I')]

    def to_roman(self, number):
        """
        Write a number as a Roman numeral in its shortest standard form.
        Raise ValueError when the number is not between 1 and 3999.
        :param number: int, the number to write
        :return: str, the numeral in upper case
        >>> converter = RomanNumeralConverter()
        >>> converter.to_roman(1994)
        'MCMXCIV'
        """

    def from_roman(self, text):
        """
        Read the value of a Roman numeral, in any letter case; a symbol followed by a larger one is subtracted.
        Raise ValueError when the text holds a character that is not a Roman numeral symbol.
        :param text: str, the numeral to read
        :return: int, the value of the numeral, 0 for an empty text
        >>> converter = RomanNumeralConverter()
        >>> converter.from_roman('xiv')
        14
        """

    def symbol_value(self, symbol):
        """
        Return the value of a single upper-case Roman numeral symbol.
        Raise ValueError when the symbol is not one of I, V, X, L, C, D and M.
        :param symbol: str, the symbol to look up
        :return: int, the value of the symbol
        >>> converter = RomanNumeralConverter()
        >>> converter.symbol_value('L')
        50
        """

    def is_canonical(self, text):
        """
        Tell whether a numeral is written exactly as to_roman would write its value.
        Raise ValueError when the text holds a character that is not a Roman numeral symbol.
        :param text: str, the numeral to check
        :return: bool, True if the text is the standard upper-case form of its value, False otherwise
        >>> converter = RomanNumeralConverter()
        >>> converter.is_canonical('IIII')
        False
        """
