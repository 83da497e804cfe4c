class ShoppingCart:
    def __init__(self, prices):
        self.prices = dict(prices)
        self.items = {}

    def add_item(self, sku, quantity=1):
        if quantity <= 0:
            raise ValueError('quantity must be positive')
        cost = self._unit_price(sku) * quantity
        self.items[sku] = self.items.get(sku, 0) + quantity
        return round(cost, 2)

    def remove_item(self, sku, quantity=1):
        held = self.items.get(sku, 0)
        if quantity >= held:
            self.items.pop(sku, None)
        else:
            self.items[sku] = held - quantity

    def line_total(self, sku):
        return round(self._unit_price(sku) * self.items.get(sku, 0), 2)

    def total(self):
        return round(sum(self._unit_price(sku) * quantity for sku, quantity in self.items.items()), 2)

    def _unit_price(self, sku):
        if sku not in self.prices:
            raise KeyError(f'unknown item: {sku}')
        return self.prices[sku]
