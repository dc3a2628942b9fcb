/**
 * The Fullscreen API as presentation mode uses it: the whole page goes full screen (so the
 * toasts stay visible over the slides). A browser that refuses or lacks it is ignored: the
 * slideshow covers the window all the same.
 */

export function enterFullscreen(): void {
  const root = document.documentElement;
  if (document.fullscreenElement || typeof root.requestFullscreen !== 'function') return;
  try {
    // Older browsers answer nothing, newer ones a promise that rejects when refused.
    void (root.requestFullscreen() as Promise<void> | undefined)?.catch(() => {});
  } catch {
    // Refused at once (no user gesture, a frame without permission).
  }
}

export function exitFullscreen(): void {
  if (!document.fullscreenElement || typeof document.exitFullscreen !== 'function') return;
  try {
    void (document.exitFullscreen() as Promise<void> | undefined)?.catch(() => {});
  } catch {
    // Already left.
  }
}
