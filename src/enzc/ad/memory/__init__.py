"""Memory in derivatives: shadows of what holds active data, and adjoints of what moves it.

    heap            shadow blocks of malloc/new/realloc, freed in the reverse pass
    memtypes        adjoints of memcpy/memmove by the type of the bytes copied
    pointer_copies  shadows of pointers a memcpy moves, copied in the forward pass
    intfloat        integer loads/stores that move floats or pointers, retyped
    fnptr           the shadow of a function pointer: its {augmented, reverse} pair
    posix_memalign  a block returned through memory, made a visible allocation
"""
