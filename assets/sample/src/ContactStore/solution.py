import csv
import os


class ContactStore:
    def __init__(self, path):
        self.path = path
        self.contacts = []

    def load(self):
        if not os.path.exists(self.path):
            self.contacts = []
        else:
            with open(self.path, newline='', encoding='utf-8') as handle:
                self.contacts = [dict(row) for row in csv.DictReader(handle)]
        return len(self.contacts)

    def save(self):
        with open(self.path, 'w', newline='', encoding='utf-8') as handle:
            writer = csv.DictWriter(handle, fieldnames=['name', 'email'], lineterminator='\n')
            writer.writeheader()
            writer.writerows(self.contacts)

    def add(self, name, email):
        if '@' not in email:
            raise ValueError(f'not an email address: {email}')
        self.contacts.append({'name': name, 'email': email.lower()})

    def find_by_domain(self, domain):
        suffix = '@' + domain.lower()
        return [contact['name'] for contact in self.contacts if contact['email'].endswith(suffix)]

    def remove(self, name):
        kept = [contact for contact in self.contacts if contact['name'] != name]
        removed = len(self.contacts) - len(kept)
        self.contacts = kept
        return removed
