"""What hostile requests and sudden kills the suite throws at the site, as the security page
counts them."""

from __future__ import annotations

IMPORT_KILLS = 5


SCORE_KILLS = 3


RANDOM_REQUESTS = 300


NASTY_URLS = [
    "/submissions/99999999999999999999999/", "/api/v1/submissions/99999999999999999999999/",
    "/cases/adder/?version=%00", "/cases/adder/leaderboard/?version=%00", "/cases/adder/leaderboard/?variant=%00",
    "/api/v1/cases/adder/leaderboard/?version=%00&variant=%00", "/cases/?q=%00", "/cases/?page=-1",
    "/cases/adder/v1%00/", "/api/v1/cases/?tag=%00",
    "/standings/?tag=%00", "/api/v1/standings/?difficulty=%00&tag=%00", "/standings/?format=%00",
    "/cases/adder/leaderboard/?format=%00", "/submissions/99999999999999999999999/compare/1/",
    "/api/v1/submissions/1/compare/99999999999999999999999/", "/standings/?difficulty=easy&tag=arithmetic&page=2",
]


CACHE_BYPASS_URLS = ["/cases/adder/leaderboard/?junk=second", "/cases/adder/leaderboard/",
                     "/cases/adder/leaderboard/?all=0", "/cases/adder/leaderboard/?page=1",
                     "/cases/adder/leaderboard/?utm_source=x&junk=3", "/cases/adder/leaderboard/?all=yes&page="]
