import re
import unicodedata


class SlugRegistry:
    """
    A registry of URL slugs: it turns titles into unique lower-case, dash-separated slugs.
    """

    def __init__(self, reserved):
        """
        Create a registry in which some slugs are already taken.
        :param reserved: list[str], the slugs that may never be handed out
        :ivar taken: list[str], the slugs in use, reserved ones first, then in order of registration
        """
        self.taken = list(reserved)

    def register(self, title):
        """
        Turn a title into a slug that is not taken yet, mark it as taken and return it.
        When the normalized title is taken, append "-2", "-3", ... until the slug is free.
        Raise ValueError when the title has no letter or digit.
        :param title: str, the title to register
        :return: str, the new slug
        >>> registry = SlugRegistry(['admin'])
        >>> registry.register('Admin!')
        'admin-2'
        >>> registry.taken
        ['admin', 'admin-2']
        """

    def is_taken(self, title):
        """
        Tell whether the slug of a title is already taken.
        :param title: str, the title to check
        :return: bool, True if the normalized title is taken, False otherwise
        >>> registry = SlugRegistry(['hello-world'])
        >>> registry.is_taken('Hello, World')
        True
        """

    def release(self, slug):
        """
        Make a slug available again.
        :param slug: str, the slug to release
        :return: bool, True if the slug was taken and is now free, False if it was not taken
        >>> registry = SlugRegistry(['draft'])
        >>> registry.release('draft')
        True
        >>> registry.taken
        []
        """

    def __normalize(self, title):
        """
        Turn a title into its slug form: accents removed, lower case, runs of letters and digits joined by dashes.
        :param title: str, the title to normalize
        :return: str, the slug form, empty when the title has no letter or digit
        >>> registry = SlugRegistry([])
        >>> registry._SlugRegistry__normalize('  Crème Brûlée, 2nd try! ')
        'creme-brulee-2nd-try'
        """
