import { USER_FILTERED_DEFINITION_ID } from '../../../models/customSections';

/**
 * The custom section editor's page (docs/custom-section-editor.md): `/reports/{secret}/new-section`
 * builds a new custom section; with a section's id it changes that custom section's calculation.
 */
export function sectionEditorPath(secret: string, sectionId?: string | null): string {
  const base = `/reports/${encodeURIComponent(secret)}/new-section`;
  return sectionId ? `${base}/${encodeURIComponent(sectionId)}` : base;
}

/** A custom section (its calculation is edited in the section editor), not one of the catalogue's charts. */
export function isCustomSection(section: { definition_id: string }): boolean {
  return section.definition_id === USER_FILTERED_DEFINITION_ID;
}
