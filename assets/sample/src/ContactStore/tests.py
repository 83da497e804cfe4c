import os
import tempfile
import unittest


class ContactStoreTestLoad(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.tmp.name, 'contacts.csv')

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, text):
        with open(self.path, 'w', encoding='utf-8') as handle:
            handle.write(text)

    def test_load_1(self):
        self.write('name,email\nAda,ada@example.org\nAlan,alan@test.net\n')
        store = ContactStore(self.path)
        self.assertEqual(store.load(), 2)
        self.assertEqual(store.contacts[1], {'name': 'Alan', 'email': 'alan@test.net'})

    def test_load_2(self):
        store = ContactStore(self.path)
        store.contacts = [{'name': 'Old', 'email': 'old@example.org'}]
        self.assertEqual(store.load(), 0)
        self.assertEqual(store.contacts, [])

    def test_load_3(self):
        self.write('name,email\n')
        store = ContactStore(self.path)
        store.load()
        self.assertFalse(store.contacts)

    def test_load_4(self):
        self.write('name,email\n"Lovelace, Ada",ada@example.org\n')
        store = ContactStore(self.path)
        store.load()
        self.assertEqual(store.contacts[0]['name'], 'Lovelace, Ada')


class ContactStoreTestSave(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.tmp.name, 'contacts.csv')

    def tearDown(self):
        self.tmp.cleanup()

    def read(self):
        with open(self.path, encoding='utf-8') as handle:
            return handle.read()

    def test_save_1(self):
        store = ContactStore(self.path)
        store.contacts = [{'name': 'Ada', 'email': 'ada@example.org'}, {'name': 'Alan', 'email': 'alan@test.net'}]
        store.save()
        self.assertEqual(self.read(), 'name,email\nAda,ada@example.org\nAlan,alan@test.net\n')

    def test_save_2(self):
        ContactStore(self.path).save()
        self.assertEqual(self.read(), 'name,email\n')

    def test_save_3(self):
        with open(self.path, 'w', encoding='utf-8') as handle:
            handle.write('stale content\n')
        store = ContactStore(self.path)
        store.contacts = [{'name': 'Eve', 'email': 'eve@example.org'}]
        store.save()
        self.assertNotIn('stale', self.read())

    def test_save_4(self):
        store = ContactStore(self.path)
        store.contacts = [{'name': 'Hopper, Grace', 'email': 'grace@navy.mil'}]
        store.save()
        self.assertIn('"Hopper, Grace"', self.read())


class ContactStoreTestAdd(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.store = ContactStore(os.path.join(self.tmp.name, 'contacts.csv'))

    def tearDown(self):
        self.tmp.cleanup()

    def test_add_1(self):
        self.store.add('Ada', 'ada@example.org')
        self.assertEqual(self.store.contacts, [{'name': 'Ada', 'email': 'ada@example.org'}])

    def test_add_2(self):
        self.store.add('Linus', 'Linus@Example.ORG')
        self.assertEqual(self.store.contacts[0]['email'], 'linus@example.org')

    def test_add_3(self):
        with self.assertRaises(ValueError):
            self.store.add('Nobody', 'nobody.example.org')
        self.assertEqual(len(self.store.contacts), 0)

    def test_add_4(self):
        self.store.add('Ada', 'ada@example.org')
        self.store.add('Ada', 'ada@work.example')
        self.assertEqual([contact['email'] for contact in self.store.contacts], ['ada@example.org', 'ada@work.example'])
        self.assertFalse(os.path.exists(self.store.path))


class ContactStoreTestFindByDomain(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.store = ContactStore(os.path.join(self.tmp.name, 'contacts.csv'))
        self.store.contacts = [
            {'name': 'Ada', 'email': 'ada@example.org'},
            {'name': 'Ben', 'email': 'ben@mail.example.org'},
            {'name': 'Cy', 'email': 'cy@example.org'},
        ]

    def tearDown(self):
        self.tmp.cleanup()

    def test_find_by_domain_1(self):
        self.assertEqual(self.store.find_by_domain('example.org'), ['Ada', 'Cy'])

    def test_find_by_domain_2(self):
        self.assertEqual(len(self.store.find_by_domain('Mail.Example.Org')), 1)

    def test_find_by_domain_3(self):
        self.assertFalse(self.store.find_by_domain('org'))


class ContactStoreTestRemove(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.store = ContactStore(os.path.join(self.tmp.name, 'contacts.csv'))
        self.store.contacts = [
            {'name': 'Ada', 'email': 'ada@example.org'},
            {'name': 'Bob', 'email': 'bob@test.net'},
            {'name': 'Ada', 'email': 'ada@work.example'},
        ]

    def tearDown(self):
        self.tmp.cleanup()

    def test_remove_1(self):
        self.assertEqual(self.store.remove('Ada'), 2)
        self.assertEqual(self.store.contacts, [{'name': 'Bob', 'email': 'bob@test.net'}])

    def test_remove_2(self):
        removed = self.store.remove('Zed')
        self.assertEqual(removed, 0)
        self.assertEqual(len(self.store.contacts), 3)

    def test_remove_3(self):
        self.store.remove('ada')
        self.assertIn('Ada', [contact['name'] for contact in self.store.contacts])


class ContactStoreTestMain(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.tmp.name, 'contacts.csv')

    def tearDown(self):
        self.tmp.cleanup()

    def test_main_1(self):
        store = ContactStore(self.path)
        self.assertEqual(store.load(), 0)
        store.add('Ada', 'ada@example.org')
        store.add('Bob', 'bob@test.net')
        store.add('Cy', 'CY@EXAMPLE.ORG')
        self.assertEqual(store.remove('Bob'), 1)
        store.save()
        reloaded = ContactStore(self.path)
        self.assertEqual(reloaded.load(), 2)
        self.assertEqual(reloaded.find_by_domain('example.org'), ['Ada', 'Cy'])
