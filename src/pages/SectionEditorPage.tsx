import { useParams } from 'wouter';
import { SectionEditorView } from '../reports/sectionEditor/SectionEditorView';

/** /reports/:secret/new-section adds a custom chart section; with /:sectionId it edits one's calculation. */
export function SectionEditorPage() {
  const { secret, sectionId } = useParams<{ secret: string; sectionId?: string }>();
  // A new section and each edited one get an editor of their own.
  return <SectionEditorView key={sectionId ?? 'new'} secret={secret} sectionId={sectionId ?? null} />;
}
