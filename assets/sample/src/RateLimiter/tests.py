import unittest


class RateLimiterTestAllow(unittest.TestCase):
    def setUp(self):
        self.limiter = RateLimiter(2, 10)

    def test_allow_1(self):
        self.assertTrue(self.limiter.allow('web', 100))

    def test_allow_2(self):
        self.limiter.hits = {'web': [100, 101]}
        self.assertFalse(self.limiter.allow('web', 102))
        self.assertEqual(self.limiter.hits['web'], [100, 101])

    def test_allow_3(self):
        self.limiter.hits = {'web': [100, 101]}
        accepted = self.limiter.allow('web', 110)
        self.assertTrue(accepted)
        self.assertEqual(self.limiter.hits['web'], [101, 110])

    def test_allow_4(self):
        self.limiter.hits = {'web': [100, 101]}
        self.assertTrue(self.limiter.allow('mobile', 101))

    def test_allow_5(self):
        answers = [self.limiter.allow('web', second) for second in (0, 1, 2, 3)]
        self.assertEqual(answers, [True, True, False, False])


class RateLimiterTestRemaining(unittest.TestCase):
    def setUp(self):
        self.limiter = RateLimiter(5, 30)

    def test_remaining_1(self):
        self.assertEqual(self.limiter.remaining('api', 0), 5)

    def test_remaining_2(self):
        self.limiter.hits = {'api': [1, 2, 3]}
        left = self.limiter.remaining('api', 20)
        self.assertEqual(left, 2)

    def test_remaining_3(self):
        self.limiter.hits = {'api': [1, 2, 3]}
        self.limiter.remaining('api', 32)
        self.assertEqual(self.limiter.hits, {'api': [3]})

    def test_remaining_4(self):
        self.limiter.hits = {'api': [10, 11, 12, 13, 14]}
        self.assertFalse(self.limiter.remaining('api', 15))


class RateLimiterTestReset(unittest.TestCase):
    def setUp(self):
        self.limiter = RateLimiter(1, 60)
        self.limiter.hits = {'a': [5], 'b': [6]}

    def test_reset_1(self):
        self.limiter.reset('a')
        self.assertEqual(self.limiter.hits, {'b': [6]})

    def test_reset_2(self):
        self.limiter.reset('zzz')
        self.assertEqual(len(self.limiter.hits), 2)

    def test_reset_3(self):
        self.assertIsNone(self.limiter.reset('b'))
        self.assertNotIn('b', self.limiter.hits)


class RateLimiterTestPrune(unittest.TestCase):
    def setUp(self):
        self.limiter = RateLimiter(3, 10)

    def test_prune_1(self):
        self.limiter.hits = {'x': [1, 5, 9]}
        self.assertEqual(self.limiter._prune('x', 15), [9])

    def test_prune_2(self):
        self.limiter.hits = {'x': [5]}
        self.assertFalse(self.limiter._prune('x', 15))

    def test_prune_3(self):
        recent = self.limiter._prune('new', 0)
        self.assertEqual(recent, [])
        self.assertIn('new', self.limiter.hits)

    def test_prune_4(self):
        self.limiter.hits = {'x': [7, 8]}
        recent = self.limiter._prune('x', 9)
        self.assertIs(recent, self.limiter.hits['x'])


class RateLimiterTestMain(unittest.TestCase):
    def test_main_1(self):
        limiter = RateLimiter(2, 60)
        self.assertTrue(limiter.allow('bot', 0))
        self.assertTrue(limiter.allow('bot', 30))
        self.assertFalse(limiter.allow('bot', 59))
        self.assertEqual(limiter.remaining('bot', 60), 1)
        self.assertEqual(limiter._prune('bot', 90), [])
        limiter.reset('bot')
        self.assertEqual(limiter.hits, {})
