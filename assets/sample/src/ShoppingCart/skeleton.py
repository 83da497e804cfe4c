class ShoppingCart:
    """
    A shopping cart that prices its items from a fixed catalogue of unit prices.
    """

    def __init__(self, prices):
        """
        Create an empty cart over a price catalogue.
        :param prices: dict[str, float], the unit price of every known item, by item code
        :ivar prices: dict[str, float], a copy of the catalogue, by item code
        :ivar items: dict[str, int], the quantity of each item in the cart, by item code
        """
        self.prices = dict(prices)
        self.items = {}

    def add_item(self, sku, quantity=1):
        """
        Add units of a catalogue item to the cart and return what they cost.
        Raise ValueError when the quantity is not positive and KeyError when the item is not in the catalogue.
        :param sku: str, the item code
        :param quantity: int, the number of units to add, 1 by default
        :return: float, the unit price times the quantity, rounded to cents
        >>> cart = ShoppingCart({'apple': 0.5, 'bread': 2.25})
        >>> cart.add_item('bread', 2)
        4.5
        >>> cart.items
        {'bread': 2}
        """

    def remove_item(self, sku, quantity=1):
        """
        Take units of an item out of the cart; the item leaves the cart when no unit is left.
        :param sku: str, the item code
        :param quantity: int, the number of units to take out, 1 by default
        :return: None
        >>> cart = ShoppingCart({'apple': 0.5})
        >>> cart.items = {'apple': 3}
        >>> cart.remove_item('apple', 2)
        >>> cart.items
        {'apple': 1}
        """

    def line_total(self, sku):
        """
        Return the cost of all units of one item in the cart, 0.0 when the item is not in the cart.
        Raise KeyError when the item is not in the catalogue.
        :param sku: str, the item code
        :return: float, the unit price times the quantity in the cart, rounded to cents
        >>> cart = ShoppingCart({'apple': 0.5})
        >>> cart.items = {'apple': 3}
        >>> cart.line_total('apple')
        1.5
        """

    def total(self):
        """
        Return the cost of the whole cart.
        :return: float, the sum over all items of unit price times quantity, rounded to cents
        >>> cart = ShoppingCart({'apple': 0.5, 'bread': 2.25})
        >>> cart.items = {'apple': 3, 'bread': 1}
        >>> cart.total()
        3.75
        """

    def _unit_price(self, sku):
        """
        Look up the unit price of an item in the catalogue.
        Raise KeyError when the item is not in the catalogue.
        :param sku: str, the item code
        :return: float, the unit price of the item
        >>> cart = ShoppingCart({'apple': 0.5})
        >>> cart._unit_price('apple')
        0.5
        """
