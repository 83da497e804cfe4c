import re
import unicodedata


class SlugRegistry:
    def __init__(self, reserved):
        self.taken = list(reserved)

    def register(self, title):
        base = self.__normalize(title)
        if not base:
            raise ValueError('the title has no letter or digit')
        slug = base
        suffix = 2
        while slug in self.taken:
            slug = f'{base}-{suffix}'
            suffix += 1
        self.taken.append(slug)
        return slug

    def is_taken(self, title):
        return self.__normalize(title) in self.taken

    def release(self, slug):
        if slug not in self.taken:
            return False
        self.taken.remove(slug)
        return True

    def __normalize(self, title):
        ascii_title = unicodedata.normalize('NFKD', title).encode('ascii', 'ignore').decode('ascii')
        return '-'.join(re.findall(r'[a-z0-9]+', ascii_title.lower()))
