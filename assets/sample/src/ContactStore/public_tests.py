import os
import tempfile
import unittest


class ContactStoreTestLoadPublic(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.tmp.name, 'people.csv')

    def tearDown(self):
        self.tmp.cleanup()

    def test_load_1(self):
        with open(self.path, 'w', encoding='utf-8') as handle:
            handle.write('name,email\nKay,kay@example.org\n')
        store = ContactStore(self.path)
        count = store.load()
        self.assertEqual(count, 1)
        self.assertEqual(store.contacts, [{'name': 'Kay', 'email': 'kay@example.org'}])

    def test_load_2(self):
        store = ContactStore(self.path)
        self.assertEqual(store.load(), 0)


class ContactStoreTestSavePublic(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.tmp.name, 'people.csv')

    def tearDown(self):
        self.tmp.cleanup()

    def test_save_1(self):
        store = ContactStore(self.path)
        store.contacts = [{'name': 'Kay', 'email': 'kay@example.org'}]
        store.save()
        with open(self.path, encoding='utf-8') as handle:
            self.assertEqual(handle.read(), 'name,email\nKay,kay@example.org\n')

    def test_save_2(self):
        store = ContactStore(self.path)
        store.save()
        self.assertTrue(os.path.exists(self.path))


class ContactStoreTestAddPublic(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.tmp.name, 'people.csv')

    def tearDown(self):
        self.tmp.cleanup()

    def test_add_1(self):
        store = ContactStore(self.path)
        store.add('Kay', 'KAY@example.org')
        self.assertEqual(store.contacts, [{'name': 'Kay', 'email': 'kay@example.org'}])

    def test_add_2(self):
        store = ContactStore(self.path)
        self.assertRaises(ValueError, store.add, 'Kay', 'kay-at-example.org')


class ContactStoreTestFindByDomainPublic(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.tmp.name, 'people.csv')

    def tearDown(self):
        self.tmp.cleanup()

    def test_find_by_domain_1(self):
        store = ContactStore(self.path)
        store.contacts = [{'name': 'Kay', 'email': 'kay@example.org'}, {'name': 'Lu', 'email': 'lu@test.net'}]
        self.assertEqual(store.find_by_domain('test.net'), ['Lu'])

    def test_find_by_domain_2(self):
        store = ContactStore(self.path)
        names = store.find_by_domain('example.org')
        self.assertEqual(names, [])


class ContactStoreTestRemovePublic(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.tmp.name, 'people.csv')

    def tearDown(self):
        self.tmp.cleanup()

    def test_remove_1(self):
        store = ContactStore(self.path)
        store.contacts = [{'name': 'Kay', 'email': 'kay@example.org'}, {'name': 'Lu', 'email': 'lu@test.net'}]
        self.assertEqual(store.remove('Kay'), 1)
        self.assertEqual(store.contacts, [{'name': 'Lu', 'email': 'lu@test.net'}])

    def test_remove_2(self):
        store = ContactStore(self.path)
        self.assertEqual(store.remove('Kay'), 0)
