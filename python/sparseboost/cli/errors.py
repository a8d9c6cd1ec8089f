"""The command line's error convention: a problem with the user's input is a
``CliError``, printed as one line ``sparseboost: error: ...`` with exit
status 2 (argparse's convention), never as a traceback."""

from __future__ import annotations

import argparse
import importlib
import re


class CliError(Exception):
    """A problem with the command line's input, worded for its user."""


class PlainHelp(argparse.ArgumentParser):
    """argparse whose help is plain text (the descriptions come from
    docstrings written in reStructuredText)."""

    def format_help(self):
        return plain(super().format_help())


class Parser(PlainHelp):
    """``PlainHelp``, but a bad option raises ``CliError`` (one line)
    instead of printing the usage and exiting."""

    def error(self, message):
        raise CliError(message)


def plain(text: str) -> str:
    """``text`` without reStructuredText's inline markup: ``code`` and
    :role:`name` become their text."""
    text = re.sub(r":[a-z]+:`~?([^`]+)`", r"\1", text)
    return re.sub(r"``([^`]+)``", r"\1", text)


def need(module: str, purpose: str):
    """Import an optional dependency, or say which extra provides it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise CliError(
            f"{module} is needed for {purpose}: pip install 'sparseboost[cli]'"
        ) from None
