import unittest


class DurationTestParsePartPublic(unittest.TestCase):
    def test_parse_part_1(self):
        seconds = Duration.parse_part('90m')
        self.assertEqual(seconds, 5400)

    def test_parse_part_2(self):
        self.assertRaises(ValueError, Duration.parse_part, '10')


class DurationTestFromStringPublic(unittest.TestCase):
    def test_from_string_1(self):
        duration = Duration.from_string('1m 1s')
        self.assertEqual(duration.seconds, 61)

    def test_from_string_2(self):
        self.assertIsInstance(Duration.from_string('3h'), Duration)


class DurationTestSplitSecondsPublic(unittest.TestCase):
    def test_split_seconds_1(self):
        hours, minutes, seconds = Duration.split_seconds(3661)
        self.assertEqual((hours, minutes, seconds), (1, 1, 1))

    def test_split_seconds_2(self):
        minutes = Duration.split_seconds(150)[1]
        self.assertEqual(minutes, 2)


class DurationTestToTextPublic(unittest.TestCase):
    def test_to_text_1(self):
        duration = Duration(125)
        text = duration.to_text()
        self.assertEqual(text, '2m 5s')

    def test_to_text_2(self):
        self.assertEqual(Duration(7260).to_text().split(), ['2h', '1m'])


class DurationTestAddPublic(unittest.TestCase):
    def test_add_1(self):
        duration = Duration(30)
        duration.add(Duration(15))
        self.assertEqual(duration.seconds, 45)
