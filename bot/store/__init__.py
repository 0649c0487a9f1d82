"""Storage: SQLite (connection, migrations, and `repos`, where every SQL statement lives), the Chroma vector
store and its in-memory window index, the archive's writer lock, the check and repair of the two stores, the profile
format the profiles table stores (`profile_format`) and a paper found by a typed id (`lookup`).
May import: models, errors, config, embeddings, and the leaf modules ingest.taxonomy and text.safetext.
"""
