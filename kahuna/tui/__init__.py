"""Kahuna in the terminal: ``kahuna play`` (against an AI or hot-seat) and ``kahuna show`` (replays).

Plain ANSI escape codes and line input, no curses: the screen is redrawn whole after every
action, reads the same without colour, and every picture is drawn from a player view only.
"""
