import unittest


class ShoppingCartTestAddItemPublic(unittest.TestCase):
    def test_add_item_1(self):
        cart = ShoppingCart({'pear': 0.75})
        cost = cart.add_item('pear', 2)
        self.assertEqual(cost, 1.5)
        self.assertEqual(cart.items['pear'], 2)

    def test_add_item_2(self):
        cart = ShoppingCart({'pear': 0.75})
        cart.items = {'pear': 1}
        cart.add_item('pear')
        self.assertEqual(cart.items, {'pear': 2})

    def test_add_item_3(self):
        cart = ShoppingCart({'pear': 0.75})
        self.assertRaises(ValueError, cart.add_item, 'pear', -1)


class ShoppingCartTestRemoveItemPublic(unittest.TestCase):
    def test_remove_item_1(self):
        cart = ShoppingCart({'fig': 1.0})
        cart.items = {'fig': 3}
        cart.remove_item('fig')
        self.assertEqual(cart.items, {'fig': 2})

    def test_remove_item_2(self):
        cart = ShoppingCart({'fig': 1.0})
        cart.items = {'fig': 1}
        self.assertIsNone(cart.remove_item('fig', 5))
        self.assertEqual(cart.items, {})


class ShoppingCartTestLineTotalPublic(unittest.TestCase):
    def test_line_total_1(self):
        cart = ShoppingCart({'oil': 5.5})
        cart.items = {'oil': 2}
        line = cart.line_total('oil')
        self.assertEqual(line, 11.0)

    def test_line_total_2(self):
        cart = ShoppingCart({'oil': 5.5, 'vinegar': 2.0})
        cart.items = {'oil': 2}
        self.assertEqual(cart.line_total('vinegar'), 0.0)


class ShoppingCartTestTotalPublic(unittest.TestCase):
    def test_total_1(self):
        cart = ShoppingCart({'nut': 0.25, 'bolt': 0.5})
        cart.items = {'nut': 8, 'bolt': 4}
        self.assertEqual(cart.total(), 4.0)

    def test_total_2(self):
        cart = ShoppingCart({'nut': 0.25})
        total = cart.total()
        self.assertEqual(total, 0)


class ShoppingCartTestUnitPricePublic(unittest.TestCase):
    def test_unit_price_1(self):
        cart = ShoppingCart({'lamp': 12.5, 'bulb': 1.25})
        prices = [cart._unit_price(sku) for sku in ('lamp', 'bulb')]
        self.assertEqual(prices, [12.5, 1.25])

    def test_unit_price_2(self):
        cart = ShoppingCart({'lamp': 12.5})
        self.assertRaises(KeyError, cart._unit_price, 'shade')
