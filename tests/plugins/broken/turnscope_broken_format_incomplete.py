"""A plug-in that lacks part of the loader interface (it has no ``load``)."""

NAME = "incomplete"
DESCRIPTION = "sniffs, but cannot load"


def sniff(doc):
    return 0
