/**
 * Whether the visitor asked their system for less motion (`prefers-reduced-motion: reduce`):
 * charts then draw at once instead of animating in. Read when a chart's options are built, so a
 * change of the setting applies to the next chart drawn.
 */
export function prefersReducedMotion(): boolean {
  return typeof window !== 'undefined' && typeof window.matchMedia === 'function' && window.matchMedia('(prefers-reduced-motion: reduce)').matches === true;
}
