"""The evidence database (SQLite or PostgreSQL): sources and their revisions (``evidence``), the
audit trail (``trail``), review records (``reviews``), the HTTP service's reports (``reports``),
and the schema lock every table is created under (``schema``)."""
