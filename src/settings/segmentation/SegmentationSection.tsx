/** Stub (issue 21): the Settings page's Segmentation section, filled in by its owner. */
export function SegmentationSection() {
  return null;
}
