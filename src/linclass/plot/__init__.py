"""Figures of the fitted models: decision regions, Fisher's projections, Gaussian densities, training
curves, regularisation paths and cross-validation curves.

matplotlib is optional (``pip install linclass[plot]``) and imported only inside the functions, so
``import linclass.plot`` costs nothing.  Every function builds on :class:`matplotlib.figure.Figure`
(never pyplot's global state), so it works headless and from threads; none calls ``show``.  Each
returns the Figure, and with ``path`` (ending in .png, .svg or .pdf) also writes it atomically
(:func:`linclass.io.atomic.atomic_write`).

Drawn artists carry a ``gid`` so that callers (and the tests) can find them: ``'regions'``,
``'boundary'``, ``'hyperplane'``, ``'ambiguous'``, ``'data'``, ``'means'``, ``'ellipse-k-n'``
(class index k, n standard deviations), ``'density'``, ``'curve'``, ``'path'`` (a regularisation
path's LineCollection), ``'label'`` (its feature labels), ``'band'``.

``canvas``            matplotlib plumbing: figures, colours, legends, saving
``points``            the data drawn: two features, class positions, axis names
``regions``           :func:`decision_regions`
``projections``       :func:`fisher_figure`
``gaussian_figures``  :func:`gaussian_contours`, :func:`gaussian_surface`
``curves``            :func:`training_curve`
``paths``             :func:`coefficient_path`, :func:`cv_curve`
"""

from typing import TYPE_CHECKING

from linclass.core.lazy import lazy_getattr

if TYPE_CHECKING:  # what type checkers see: the names the module __getattr__ imports on first use
    from linclass.plot.curves import training_curve
    from linclass.plot.gaussian_figures import gaussian_contours, gaussian_surface
    from linclass.plot.paths import coefficient_path, cv_curve
    from linclass.plot.projections import fisher_figure
    from linclass.plot.regions import decision_regions

#: each figure -> its module, imported on first use (module ``__getattr__``): the command's
#: parser reads ``canvas.FORMATS`` without importing the models the figures draw
_HOME = {
    "training_curve": "curves", "coefficient_path": "paths", "cv_curve": "paths",
    "gaussian_contours": "gaussian_figures", "gaussian_surface": "gaussian_figures",
    "fisher_figure": "projections", "decision_regions": "regions",
}


if not TYPE_CHECKING:  # type checkers read the imports above instead
    __getattr__ = lazy_getattr(__name__, _HOME, globals())


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


__all__ = [
    "coefficient_path",
    "cv_curve",
    "decision_regions",
    "fisher_figure",
    "gaussian_contours",
    "gaussian_surface",
    "training_curve",
]
