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

from linclass.inspect.plot.curves import training_curve
from linclass.inspect.plot.paths import coefficient_path, cv_curve
from linclass.inspect.plot.gaussian_figures import gaussian_contours, gaussian_surface
from linclass.inspect.plot.projections import fisher_figure
from linclass.inspect.plot.regions import decision_regions

__all__ = [
    "coefficient_path",
    "cv_curve",
    "decision_regions",
    "fisher_figure",
    "gaussian_contours",
    "gaussian_surface",
    "training_curve",
]
