"""The database: the tables, the store of game records, the single writer and the migrations."""
