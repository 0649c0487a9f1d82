"""Storage: SQLite (connection, migrations, and `repos`, where every SQL statement lives), the Chroma vector
store and its in-memory window index, the archive's writer lock, and the check and repair of the two stores.
May import: models, errors, config, embeddings.
"""
