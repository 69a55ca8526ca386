"""The branch screens: the editor, its review and answer dialogs, the live run, and the tree of branches."""
