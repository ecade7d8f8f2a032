"""Small utilities every layer may import: the version, atomic writes, bounded JSON reading and
file names from identifiers. They import nothing of citeaudit but its errors."""
