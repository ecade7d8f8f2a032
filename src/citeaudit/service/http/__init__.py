"""The HTTP API (``citeaudit serve``): the app (``app.py``), who may call it (``auth.py``), its
problem documents (``problems.py``) and its endpoints (``routes.py``)."""

from citeaudit.service.http.app import ServiceSettings, create_app
from citeaudit.service.keys import ROLES, ApiKey, hash_key, load_keys

__all__ = ["ROLES", "ApiKey", "ServiceSettings", "create_app", "hash_key", "load_keys"]
