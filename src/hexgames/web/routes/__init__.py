"""The site's routes, one FastAPI ``APIRouter`` per domain (see :mod:`hexgames.web.app`)."""
