class RateLimiter:
    """
    A sliding-window rate limiter: each client may make at most a given number of requests in any window of time.
    Times are whole seconds given by the caller, so the limiter never reads a clock.
    """

    def __init__(self, limit, window):
        """
        Create a limiter with no recorded request.
        :param limit: int, the largest number of requests a client may make within one window
        :param window: int, the length of the window in seconds
        :ivar limit: int, the largest number of requests a client may make within one window
        :ivar window: int, the length of the window in seconds
        :ivar hits: dict[str, list[int]], the times of the accepted requests of each client, oldest first, by client name
        """
        self.limit = limit
        self.window = window
        self.hits = {}

    def allow(self, client, now):
        """
        Decide whether a client may make a request now, and record the request when it is accepted.
        Requests older than the window are forgotten first.
        :param client: str, the name of the client
        :param now: int, the current time in seconds
        :return: bool, True if the request is accepted, False if the client has reached the limit
        >>> limiter = RateLimiter(2, 60)
        >>> limiter.allow('app', 0)
        True
        >>> limiter.hits
        {'app': [0]}
        """

    def remaining(self, client, now):
        """
        Return how many more requests a client may make now, after forgetting requests older than the window.
        :param client: str, the name of the client
        :param now: int, the current time in seconds
        :return: int, the number of requests left in the current window
        >>> limiter = RateLimiter(3, 60)
        >>> limiter.hits = {'app': [10, 50]}
        >>> limiter.remaining('app', 75)
        2
        """

    def reset(self, client):
        """
        Forget every request of a client.
        :param client: str, the name of the client
        :return: None
        >>> limiter = RateLimiter(3, 60)
        >>> limiter.hits = {'app': [10], 'cli': [20]}
        >>> limiter.reset('app')
        >>> limiter.hits
        {'cli': [20]}
        """

    def _prune(self, client, now):
        """
        Drop the requests of a client that are older than the window; a request made exactly one window ago is dropped.
        :param client: str, the name of the client
        :param now: int, the current time in seconds
        :return: list[int], the times of the client's requests still in the window, the same list as the one now stored in hits
        >>> limiter = RateLimiter(3, 60)
        >>> limiter.hits = {'app': [0, 30, 70]}
        >>> limiter._prune('app', 90)
        [70]
        """
