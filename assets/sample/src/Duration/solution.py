class Duration:
    def __init__(self, seconds):
        if seconds < 0:
            raise ValueError('a duration cannot be negative')
        self.seconds = seconds

    @staticmethod
    def parse_part(part):
        units = {'h': 3600, 'm': 60, 's': 1}
        amount, unit = part[:-1], part[-1:]
        if unit not in units or not amount.isdigit():
            raise ValueError(f'bad duration part: {part!r}')
        return int(amount) * units[unit]

    @classmethod
    def from_string(cls, text):
        return cls(sum(cls.parse_part(part) for part in text.split()))

    @staticmethod
    def split_seconds(total):
        hours, rest = divmod(total, 3600)
        minutes, seconds = divmod(rest, 60)
        return hours, minutes, seconds

    def to_text(self):
        hours, minutes, seconds = Duration.split_seconds(self.seconds)
        parts = []
        if hours:
            parts.append(f'{hours}h')
        if minutes:
            parts.append(f'{minutes}m')
        if seconds or not parts:
            parts.append(f'{seconds}s')
        return ' '.join(parts)

    def add(self, other):
        self.seconds += other.seconds
