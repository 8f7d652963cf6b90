"""citeline: answers over your own documents, with citations that point at the exact place.

The public Python API::

    import citeline
    idx = citeline.open_index("my-index")
    idx.index("docs/")
    idx.search("query", k=20, mode="hybrid")
    idx.ask("question")
    idx.ask("question", documents=["handbook/", "contracts/2024-*.pdf"])  # those only
"""

from citeline.errors import CiteError
from citeline.pipeline import Index, IndexReport, SearchResult, open_index
from citeline.types import Answer, Citation, Hit

__version__ = "0.1.0"
__all__ = [
    "Answer", "CiteError", "Citation", "Hit", "Index", "IndexReport", "SearchResult",
    "open_index", "__version__",
]
