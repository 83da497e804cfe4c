import unittest


class SlugRegistryTestRegisterPublic(unittest.TestCase):
    def test_register_1(self):
        registry = SlugRegistry([])
        slug = registry.register('Hello World')
        self.assertEqual(slug, 'hello-world')
        self.assertIn(slug, registry.taken)

    def test_register_2(self):
        registry = SlugRegistry(['tips', 'tips-2'])
        self.assertEqual(registry.register('Tips'), 'tips-3')

    def test_register_3(self):
        registry = SlugRegistry([])
        self.assertRaises(ValueError, registry.register, '   ')


class SlugRegistryTestIsTakenPublic(unittest.TestCase):
    def test_is_taken_1(self):
        registry = SlugRegistry(['team'])
        self.assertTrue(registry.is_taken('TEAM'))

    def test_is_taken_2(self):
        registry = SlugRegistry([])
        taken = registry.is_taken('team')
        self.assertIs(taken, False)


class SlugRegistryTestReleasePublic(unittest.TestCase):
    def test_release_1(self):
        registry = SlugRegistry(['old-page'])
        registry.release('old-page')
        self.assertEqual(registry.taken, [])

    def test_release_2(self):
        registry = SlugRegistry([])
        self.assertIs(registry.release('ghost'), False)


class SlugRegistryTestNormalizePublic(unittest.TestCase):
    def test_normalize_1(self):
        registry = SlugRegistry([])
        self.assertEqual(registry._SlugRegistry__normalize('  Café  Menu  '), 'cafe-menu')

    def test_normalize_2(self):
        registry = SlugRegistry([])
        slug = registry._SlugRegistry__normalize('Top 10 Tips!')
        self.assertTrue(slug.islower())
        self.assertEqual(slug.count('-'), 2)
