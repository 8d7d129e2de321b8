"""Statistics over game results: pure functions that say what the games show and how surely."""
