"""Memory in derivatives: shadows of heap blocks, globals and function pointers, adjoints
of memory copies by type, integer moves given their real type."""
