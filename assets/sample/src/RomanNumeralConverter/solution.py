class RomanNumeralConverter:
    def __init__(self):
        self.pairs = [(1000, 'M'), (900, 'CM'), (500, 'D'), (400, 'CD'), (100, 'C'), (90, 'XC'),
                      (50, 'L'), (40, 'XL'), (10, 'X'), (9, 'IX'), (5, 'V'), (4, 'IV'), (1, 'I')]

    def to_roman(self, number):
        if not 1 <= number <= 3999:
            raise ValueError('only numbers from 1 to 3999 can be written')
        digits = []
        for value, symbol in self.pairs:
            count, number = divmod(number, value)
            digits.append(symbol * count)
        return ''.join(digits)

    def from_roman(self, text):
        values = list(map(self.symbol_value, text.upper()))
        total = 0
        for index, value in enumerate(values):
            if index + 1 < len(values) and value < values[index + 1]:
                total -= value
            else:
                total += value
        return total

    def symbol_value(self, symbol):
        values = {'I': 1, 'V': 5, 'X': 10, 'L': 50, 'C': 100, 'D': 500, 'M': 1000}
        if symbol not in values:
            raise ValueError(f'not a roman numeral symbol: {symbol!r}')
        return values[symbol]

    def is_canonical(self, text):
        value = self.from_roman(text)
        return 1 <= value <= 3999 and self.to_roman(value) == text
