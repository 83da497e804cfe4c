import unittest


class RateLimiterTestAllowPublic(unittest.TestCase):
    def test_allow_1(self):
        limiter = RateLimiter(1, 5)
        limiter.hits = {'u': [3]}
        self.assertFalse(limiter.allow('u', 4))

    def test_allow_2(self):
        limiter = RateLimiter(1, 5)
        limiter.hits = {'u': [3]}
        accepted = limiter.allow('u', 8)
        self.assertTrue(accepted)
        self.assertEqual(limiter.hits, {'u': [8]})

    def test_allow_3(self):
        limiter = RateLimiter(3, 5)
        limiter.allow('u', 1)
        self.assertEqual(limiter.hits['u'], [1])


class RateLimiterTestRemainingPublic(unittest.TestCase):
    def test_remaining_1(self):
        limiter = RateLimiter(4, 100)
        limiter.hits = {'u': [0, 50]}
        self.assertEqual(limiter.remaining('u', 99), 2)

    def test_remaining_2(self):
        limiter = RateLimiter(4, 100)
        limiter.hits = {'u': [0, 50]}
        left = limiter.remaining('u', 100)
        self.assertEqual(left, 3)


class RateLimiterTestResetPublic(unittest.TestCase):
    def test_reset_1(self):
        limiter = RateLimiter(1, 5)
        limiter.hits = {'u': [1, 2]}
        limiter.reset('u')
        self.assertNotIn('u', limiter.hits)


class RateLimiterTestPrunePublic(unittest.TestCase):
    def test_prune_1(self):
        limiter = RateLimiter(2, 20)
        limiter.hits = {'u': [5, 20]}
        self.assertEqual(limiter._prune('u', 24), [5, 20])

    def test_prune_2(self):
        limiter = RateLimiter(2, 20)
        limiter.hits = {'u': [5, 20]}
        limiter._prune('u', 25)
        self.assertEqual(limiter.hits['u'], [20])
