import unittest


class DurationTestParsePart(unittest.TestCase):
    def test_parse_part_1(self):
        self.assertEqual(Duration.parse_part('45s'), 45)

    def test_parse_part_2(self):
        parts = ['1h', '3m', '10s']
        self.assertEqual([Duration.parse_part(part) for part in parts], [3600, 180, 10])

    def test_parse_part_3(self):
        with self.assertRaises(ValueError):
            Duration.parse_part('5d')

    def test_parse_part_4(self):
        for bad in ('m', 'xm', '-5m', ''):
            with self.subTest(part=bad):
                self.assertRaises(ValueError, Duration.parse_part, bad)


class DurationTestFromString(unittest.TestCase):
    def test_from_string_1(self):
        self.assertEqual(Duration.from_string('2h 15m 5s').seconds, 8105)

    def test_from_string_2(self):
        duration = Duration.from_string('')
        self.assertIsInstance(duration, Duration)
        self.assertEqual(duration.seconds, 0)

    def test_from_string_3(self):
        seconds = [Duration.from_string(text).seconds for text in ('30s 30s', '  1m  ')]
        self.assertEqual(seconds, [60, 60])

    def test_from_string_4(self):
        with self.assertRaises(ValueError):
            Duration.from_string('1h 2x')


class DurationTestSplitSeconds(unittest.TestCase):
    def test_split_seconds_1(self):
        self.assertEqual(Duration.split_seconds(0), (0, 0, 0))

    def test_split_seconds_2(self):
        hours, minutes, seconds = Duration.split_seconds(7384)
        self.assertEqual(hours, 2)
        self.assertEqual(minutes, 3)
        self.assertEqual(seconds, 4)

    def test_split_seconds_3(self):
        self.assertEqual(Duration.split_seconds(59)[2], 59)

    def test_split_seconds_4(self):
        result = Duration.split_seconds(90000)
        self.assertEqual(result, (25, 0, 0))


class DurationTestToText(unittest.TestCase):
    def test_to_text_1(self):
        self.assertEqual(Duration(3600).to_text(), '1h')

    def test_to_text_2(self):
        duration = Duration(0)
        self.assertEqual(duration.to_text(), '0s')

    def test_to_text_3(self):
        duration = Duration(3605)
        text = duration.to_text()
        self.assertNotIn('m', text)
        self.assertEqual(text, '1h 5s')

    def test_to_text_4(self):
        texts = [Duration(seconds).to_text() for seconds in (61, 600)]
        self.assertEqual(texts, ['1m 1s', '10m'])


class DurationTestAdd(unittest.TestCase):
    def setUp(self):
        self.duration = Duration(100)

    def test_add_1(self):
        self.duration.add(Duration(20))
        self.assertEqual(self.duration.seconds, 120)

    def test_add_2(self):
        other = Duration(5)
        self.duration.add(other)
        self.assertEqual(other.seconds, 5)

    def test_add_3(self):
        self.assertIsNone(self.duration.add(Duration(0)))
        self.assertEqual(self.duration.seconds, 100)


class DurationTestMain(unittest.TestCase):
    def test_main_1(self):
        self.assertEqual(Duration.parse_part('20m'), 1200)
        duration = Duration.from_string('1h 20m')
        duration.add(Duration.from_string('45m 10s'))
        self.assertEqual(Duration.split_seconds(duration.seconds), (2, 5, 10))
        self.assertEqual(duration.to_text(), '2h 5m 10s')
