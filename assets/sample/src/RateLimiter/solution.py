class RateLimiter:
    def __init__(self, limit, window):
        self.limit = limit
        self.window = window
        self.hits = {}

    def allow(self, client, now):
        recent = self._prune(client, now)
        if len(recent) >= self.limit:
            return False
        recent.append(now)
        return True

    def remaining(self, client, now):
        return self.limit - len(self._prune(client, now))

    def reset(self, client):
        self.hits.pop(client, None)

    def _prune(self, client, now):
        recent = [stamp for stamp in self.hits.get(client, []) if stamp > now - self.window]
        self.hits[client] = recent
        return recent
