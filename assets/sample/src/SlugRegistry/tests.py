import unittest


class SlugRegistryTestRegister(unittest.TestCase):
    def setUp(self):
        self.registry = SlugRegistry(['about'])

    def test_register_1(self):
        self.assertEqual(self.registry.register('My First Post'), 'my-first-post')

    def test_register_2(self):
        slug = self.registry.register('About')
        self.assertEqual(slug, 'about-2')

    def test_register_3(self):
        self.registry.taken = ['about', 'news', 'news-2']
        self.registry.register('News')
        self.assertEqual(self.registry.taken[-1], 'news-3')

    def test_register_4(self):
        with self.assertRaises(ValueError):
            self.registry.register('?!')
        self.assertEqual(self.registry.taken, ['about'])


class SlugRegistryTestIsTaken(unittest.TestCase):
    def setUp(self):
        self.registry = SlugRegistry(['contact-us', 'faq'])

    def test_is_taken_1(self):
        self.assertTrue(self.registry.is_taken('Contact Us'))

    def test_is_taken_2(self):
        self.assertFalse(self.registry.is_taken('Contact'))

    def test_is_taken_3(self):
        titles = ['FAQ', ' faq ', 'F.A.Q.']
        self.assertEqual([self.registry.is_taken(title) for title in titles], [True, True, False])


class SlugRegistryTestRelease(unittest.TestCase):
    def setUp(self):
        self.registry = SlugRegistry(['home', 'blog'])

    def test_release_1(self):
        self.assertTrue(self.registry.release('blog'))
        self.assertEqual(self.registry.taken, ['home'])

    def test_release_2(self):
        released = self.registry.release('shop')
        self.assertFalse(released)
        self.assertEqual(len(self.registry.taken), 2)

    def test_release_3(self):
        self.registry.release('home')
        self.assertNotIn('home', self.registry.taken)


class SlugRegistryTestNormalize(unittest.TestCase):
    def setUp(self):
        self.registry = SlugRegistry([])

    def test_normalize_1(self):
        self.assertEqual(self.registry._SlugRegistry__normalize('Hello World'), 'hello-world')

    def test_normalize_2(self):
        slug = self.registry._SlugRegistry__normalize('Ångström -- Über 9000')
        self.assertEqual(slug, 'angstrom-uber-9000')

    def test_normalize_3(self):
        self.assertFalse(self.registry._SlugRegistry__normalize('¿¡ !?'))

    def test_normalize_4(self):
        self.assertNotIn('_', self.registry._SlugRegistry__normalize('snake_case_name'))


class SlugRegistryTestMain(unittest.TestCase):
    def test_main_1(self):
        registry = SlugRegistry(['index'])
        self.assertEqual(registry._SlugRegistry__normalize('Index'), 'index')
        self.assertTrue(registry.is_taken('INDEX'))
        self.assertEqual(registry.register('Index'), 'index-2')
        self.assertTrue(registry.release('index'))
        self.assertEqual(registry.register('Index'), 'index')
        self.assertEqual(registry.taken, ['index-2', 'index'])
