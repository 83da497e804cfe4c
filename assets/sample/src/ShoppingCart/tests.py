import unittest


class ShoppingCartTestAddItem(unittest.TestCase):
    def setUp(self):
        self.cart = ShoppingCart({'milk': 1.25, 'eggs': 3.0})

    def test_add_item_1(self):
        self.assertEqual(self.cart.add_item('milk', 4), 5.0)

    def test_add_item_2(self):
        self.cart.add_item('eggs')
        self.cart.add_item('eggs', 2)
        self.assertEqual(self.cart.items, {'eggs': 3})

    def test_add_item_3(self):
        with self.assertRaises(KeyError):
            self.cart.add_item('caviar')

    def test_add_item_4(self):
        with self.assertRaises(ValueError):
            self.cart.add_item('milk', 0)
        self.assertEqual(self.cart.items, {})


class ShoppingCartTestRemoveItem(unittest.TestCase):
    def setUp(self):
        self.cart = ShoppingCart({'tea': 4.5, 'jam': 2.75})
        self.cart.items = {'tea': 2, 'jam': 5}

    def test_remove_item_1(self):
        self.cart.remove_item('jam', 3)
        self.assertEqual(self.cart.items['jam'], 2)

    def test_remove_item_2(self):
        self.cart.remove_item('tea', 2)
        self.assertNotIn('tea', self.cart.items)

    def test_remove_item_3(self):
        self.cart.remove_item('jam', 10)
        self.assertEqual(self.cart.items, {'tea': 2})

    def test_remove_item_4(self):
        self.cart.remove_item('coffee')
        self.assertEqual(len(self.cart.items), 2)

    def test_remove_item_5(self):
        self.cart.remove_item('tea')
        self.assertEqual(self.cart.items.get('tea'), 1)


class ShoppingCartTestLineTotal(unittest.TestCase):
    def setUp(self):
        self.cart = ShoppingCart({'rice': 1.75, 'salt': 0.25})

    def test_line_total_1(self):
        self.cart.items = {'rice': 4}
        self.assertEqual(self.cart.line_total('rice'), 7.0)

    def test_line_total_2(self):
        self.assertEqual(self.cart.line_total('salt'), 0.0)

    def test_line_total_3(self):
        self.cart.items = {'rice': 1, 'salt': 3}
        totals = [self.cart.line_total(sku) for sku in ('rice', 'salt')]
        self.assertEqual(totals, [1.75, 0.75])

    def test_line_total_4(self):
        self.assertRaises(KeyError, self.cart.line_total, 'pepper')


class ShoppingCartTestTotal(unittest.TestCase):
    def setUp(self):
        self.cart = ShoppingCart({'pen': 1.5, 'ink': 6.25, 'pad': 3.0})

    def test_total_1(self):
        self.assertEqual(self.cart.total(), 0.0)

    def test_total_2(self):
        self.cart.items = {'pen': 2, 'ink': 1, 'pad': 4}
        self.assertEqual(self.cart.total(), 21.25)

    def test_total_3(self):
        self.cart.items = {'pen': 3}
        total = self.cart.total()
        self.assertIsInstance(total, float)
        self.assertAlmostEqual(total, 4.5)

    def test_total_4(self):
        self.cart.items = {'quill': 1}
        with self.assertRaises(KeyError):
            self.cart.total()


class ShoppingCartTestUnitPrice(unittest.TestCase):
    def test_unit_price_1(self):
        cart = ShoppingCart({'soap': 2.5})
        self.assertEqual(cart._unit_price('soap'), 2.5)

    def test_unit_price_2(self):
        cart = ShoppingCart({})
        with self.assertRaises(KeyError):
            cart._unit_price('soap')

    def test_unit_price_3(self):
        catalogue = {'cup': 4.0}
        cart = ShoppingCart(catalogue)
        catalogue['cup'] = 9.0
        self.assertEqual(cart._unit_price('cup'), 4.0)


class ShoppingCartTestMain(unittest.TestCase):
    def test_main_1(self):
        cart = ShoppingCart({'apple': 0.5, 'cheese': 4.75})
        self.assertEqual(cart.add_item('apple', 6), 3.0)
        self.assertEqual(cart.add_item('cheese'), 4.75)
        self.assertEqual(cart._unit_price('cheese'), 4.75)
        cart.remove_item('apple', 2)
        self.assertEqual(cart.line_total('apple'), 2.0)
        self.assertEqual(cart.total(), 6.75)
