/**
 * The words one mapping import's page uses around the shared steps (what it imports, where its
 * data shows afterwards). The roles' own names come from the machine's config.
 */
export interface MappingWizardTexts {
  /** The Stepper's line under 'Map columns'. */
  mapStepDescription: string;
  /** The Stepper's line under 'Import'. */
  importStepDescription: string;
  /** What the upload step says the file holds. */
  uploadIntro: string;
  /** After 'N rows · the first M shown below.': how to map. */
  mappingHint: string;
  /** The picker over each column: '{word} of column N' ('Field', 'Role'). */
  columnPickerWord: string;
  /** The list of required roles and whether each is mapped. */
  requiredListTitle: string;
  /** The id tying that list to its title. */
  requiredListId: string;
  /** Under 'Skip headers'. */
  skipHeadersDescription: string;
  /** The title of the mapping's failure alert. */
  mappingFailureTitle: string;
  /** The progress step's title ('Importing your payments…'). */
  importingTitle: string;
  /** Under the progress bar. */
  importingDescription: string;
  /** '2 records', '1 value': what the result counts as imported. */
  importedCount(count: number): string;
  /** Where the imported data is seen, offered unless the import failed. */
  resultLink: { href: string; label: string };
}
