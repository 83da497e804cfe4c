class Duration:
    """
    A length of time in whole seconds, written as text like "1h 30m 15s".
    """

    def __init__(self, seconds):
        """
        Create a duration.
        Raise ValueError when the number of seconds is negative.
        :param seconds: int, the length of the duration in seconds
        :ivar seconds: int, the length of the duration in seconds
        """
        if seconds < 0:
            raise ValueError('a duration cannot be negative')
        self.seconds = seconds

    @staticmethod
    def parse_part(part):
        """
        Convert one part of a duration text, digits followed by the unit "h", "m" or "s", into seconds.
        Raise ValueError when the part is not digits followed by a known unit.
        :param part: str, the part to convert, such as "90m"
        :return: int, the number of seconds the part stands for
        >>> Duration.parse_part('2h')
        7200
        """

    @classmethod
    def from_string(cls, text):
        """
        Build a duration from a text made of whitespace-separated parts such as "1h 30m"; an empty text gives zero seconds.
        :param text: str, the duration text
        :return: Duration, the duration the parts add up to
        >>> Duration.from_string('1h 30m').seconds
        5400
        """

    @staticmethod
    def split_seconds(total):
        """
        Split a number of seconds into whole hours, remaining minutes and remaining seconds.
        :param total: int, the number of seconds to split
        :return: tuple[int, int, int], the hours, minutes and seconds
        >>> Duration.split_seconds(3725)
        (1, 2, 5)
        """

    def to_text(self):
        """
        Write the duration as text: its non-zero hours, minutes and seconds, such as "1h 5s"; zero is written "0s".
        :return: str, the duration text
        >>> duration = Duration(5430)
        >>> duration.to_text()
        '1h 30m 30s'
        """

    def add(self, other):
        """
        Lengthen this duration by another one.
        :param other: Duration, the duration to add
        :return: None
        >>> duration = Duration(60)
        >>> duration.add(Duration(30))
        >>> duration.seconds
        90
        """
