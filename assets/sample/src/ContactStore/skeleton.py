import csv
import os


class ContactStore:
    """
    An address book of names and e-mail addresses, kept in memory and stored in a CSV file with the header "name,email".
    """

    def __init__(self, path):
        """
        Create an empty store bound to a CSV file; nothing is read or written yet.
        :param path: str, the path of the CSV file
        :ivar path: str, the path of the CSV file
        :ivar contacts: list[dict[str, str]], the contacts in order, each with the keys "name" and "email"
        """
        self.path = path
        self.contacts = []

    def load(self):
        """
        Replace the contacts in memory with those of the CSV file; a missing file means no contacts.
        :return: int, the number of contacts loaded
        >>> store = ContactStore('no-such-file.csv')
        >>> store.load()
        0
        >>> store.contacts
        []
        """

    def save(self):
        """
        Write the contacts in memory to the CSV file, header first, replacing its content.
        :return: None
        >>> store = ContactStore('contacts.csv')
        >>> store.contacts = [{'name': 'Ada', 'email': 'ada@example.org'}]
        >>> store.save()
        >>> copy = ContactStore('contacts.csv')
        >>> copy.load()
        1
        >>> copy.contacts
        [{'name': 'Ada', 'email': 'ada@example.org'}]
        """

    def add(self, name, email):
        """
        Append a contact in memory, with its e-mail address in lower case.
        Raise ValueError when the address has no "@".
        :param name: str, the name of the contact
        :param email: str, the e-mail address of the contact
        :return: None
        >>> store = ContactStore('contacts.csv')
        >>> store.add('Grace', 'Grace@Navy.MIL')
        >>> store.contacts
        [{'name': 'Grace', 'email': 'grace@navy.mil'}]
        """

    def find_by_domain(self, domain):
        """
        Return the names of the contacts whose e-mail address belongs to a domain, case-insensitively.
        :param domain: str, the domain, such as "example.org"
        :return: list[str], the matching names in contact order
        >>> store = ContactStore('contacts.csv')
        >>> store.contacts = [{'name': 'Ada', 'email': 'ada@example.org'}, {'name': 'Bob', 'email': 'bob@test.net'}]
        >>> store.find_by_domain('EXAMPLE.org')
        ['Ada']
        """

    def remove(self, name):
        """
        Remove every contact with a given name from memory.
        :param name: str, the exact name to remove
        :return: int, the number of contacts removed
        >>> store = ContactStore('contacts.csv')
        >>> store.contacts = [{'name': 'Ada', 'email': 'ada@example.org'}, {'name': 'Bob', 'email': 'bob@test.net'}]
        >>> store.remove('Bob')
        1
        """
