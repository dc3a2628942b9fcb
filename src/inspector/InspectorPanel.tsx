import { Alert, Badge, Button, Divider, Drawer, FileInput, Group, NavLink, Stack, Text } from '@mantine/core';
import { IconAlertCircle, IconDownload, IconFileImport, IconTrash } from '@tabler/icons-react';
import { useCallback, useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { ActorTrace } from './ActorTrace';
import { stateLabel } from './format';
import { useInspector } from './InspectorContext';
import classes from './InspectorPanel.module.css';
import type { InspectedActor, InspectorRegistry } from './registry';
import { createTraceFile, downloadTraceFile, MAX_TRACE_FILE_BYTES, parseTraceFile, TraceFileError, traceFileName } from './traceFile';

/** Re-renders with every change of the registry; returns its actors. */
function useInspectedActors(registry: InspectorRegistry): InspectedActor[] {
  const subscribe = useCallback((listener: () => void) => registry.subscribe(listener), [registry]);
  useSyncExternalStore(subscribe, () => registry.getVersion(), () => registry.getVersion());
  return registry.list();
}

/** Inputs that the arrow keys do not move in. */
const NOT_TYPED_INPUTS = new Set(['file', 'checkbox', 'radio', 'button', 'submit', 'reset', 'image', 'color']);

/** Whether the arrow keys belong to what has the focus (a text field, the slider), not to stepping. */
function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  if (target instanceof HTMLInputElement) return !NOT_TYPED_INPUTS.has(target.type);
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  // The slider steps itself with the arrow keys.
  return target.getAttribute('role') === 'slider';
}

function ActorBadge({ actor }: { actor: InspectedActor }) {
  if (actor.loaded) {
    return (
      <Badge size="sm" variant="light" color="blue">
        loaded
      </Badge>
    );
  }
  return actor.live ? (
    <Badge size="sm" variant="light" color="green">
      live
    </Badge>
  ) : (
    <Badge size="sm" variant="light" color="gray">
      ended
    </Badge>
  );
}

/**
 * The state inspector (support staff diagnose stuck imports and reports with it): the page's
 * machine actors, each one's state, context and timestamped event log, stepping back and
 * forward through the recorded snapshots (buttons, slider, ←/→), trace export and import,
 * and for an import the server's audit log. Opened from the user menu or `?inspect=1`.
 */
export function InspectorPanel() {
  const controls = useInspector();
  if (!controls) return null;
  return <InspectorDrawer opened={controls.opened} onClose={controls.close} registry={controls.registry} />;
}

interface InspectorDrawerProps {
  opened: boolean;
  onClose: () => void;
  registry: InspectorRegistry;
}

function InspectorDrawer({ opened, onClose, registry }: InspectorDrawerProps) {
  const actors = useInspectedActors(registry);
  const [selectedId, setSelectedId] = useState<string | null>(null);
  /** Per actor, the snapshot stepped to, counted from the actor's start (absent: follow the latest). */
  const [steps, setSteps] = useState<Record<string, number>>({});
  const [importError, setImportError] = useState<string | null>(null);
  const [importNotice, setImportNotice] = useState<string | null>(null);
  const resetFileInput = useRef<() => void>(null);

  const selected = actors.find((actor) => actor.id === selectedId) ?? actors.find((actor) => actor.importId) ?? actors[0];
  const last = selected ? selected.trace.length - 1 : -1;
  const dropped = selected?.dropped ?? 0;
  const stored = selected ? steps[selected.id] : undefined;
  const position = stored === undefined ? last : Math.min(Math.max(stored - dropped, 0), last);

  const selectedActorId = selected?.id;
  const stepTo = useCallback(
    (next: number) => {
      if (selectedActorId === undefined) return;
      setSteps((current) => {
        const updated = { ...current };
        if (next >= last) delete updated[selectedActorId];
        else updated[selectedActorId] = dropped + Math.max(0, next);
        return updated;
      });
    },
    [selectedActorId, last, dropped],
  );

  useEffect(() => {
    if (!opened || selectedActorId === undefined) return;
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey || isTyping(event.target)) return;
      if (event.key === 'ArrowLeft') {
        event.preventDefault();
        stepTo(position - 1);
      } else if (event.key === 'ArrowRight') {
        event.preventDefault();
        stepTo(position + 1);
      }
    };
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, [opened, selectedActorId, position, stepTo]);

  const exportActors = (which: InspectedActor[]) => {
    const now = new Date();
    downloadTraceFile(createTraceFile(which, now), traceFileName(which, now));
  };

  const importTrace = async (file: File | null) => {
    setImportError(null);
    setImportNotice(null);
    resetFileInput.current?.();
    if (!file) return;
    try {
      if (file.size > MAX_TRACE_FILE_BYTES) {
        throw new TraceFileError(`The file is larger than ${MAX_TRACE_FILE_BYTES / (1024 * 1024)} MB.`);
      }
      const parsed = parseTraceFile(await file.text());
      const ids = parsed.actors.map((actor) => registry.load(actor));
      setSelectedId(ids[0] ?? null);
      setImportNotice(`Loaded ${ids.length} actor${ids.length === 1 ? '' : 's'} from ${file.name} (exported ${parsed.exportedAt}).`);
    } catch (error) {
      setImportError(error instanceof TraceFileError ? error.message : 'The file could not be read.');
    }
  };

  return (
    <Drawer
      opened={opened}
      onClose={onClose}
      position="right"
      size="40%"
      title="State inspector"
      withOverlay={false}
      lockScroll={false}
      trapFocus={false}
      closeOnClickOutside={false}
      closeButtonProps={{ 'aria-label': 'Close the inspector' }}
      classNames={{ content: classes.content }}
    >
      <Stack gap="md">
        <Group gap="xs" align="flex-end" wrap="wrap">
          <FileInput
            label="Import trace"
            placeholder="Choose a .json trace"
            accept=".json,application/json"
            value={null}
            onChange={(file) => void importTrace(file)}
            resetRef={resetFileInput}
            leftSection={<IconFileImport size={16} />}
            size="xs"
            className={classes.fileInput}
          />
          <Button size="xs" variant="default" leftSection={<IconDownload size={14} />} onClick={() => exportActors(actors)} disabled={actors.length === 0}>
            Export all
          </Button>
          <Button
            size="xs"
            variant="subtle"
            color="gray"
            leftSection={<IconTrash size={14} />}
            onClick={() => registry.clear()}
            disabled={actors.every((actor) => actor.live)}
          >
            Clear ended
          </Button>
        </Group>
        {importError ? (
          <Alert color="red" variant="light" icon={<IconAlertCircle size={18} />} title="The trace could not be imported" role="alert" withCloseButton onClose={() => setImportError(null)}>
            {importError}
          </Alert>
        ) : null}
        {importNotice ? (
          <Text size="sm" c="dimmed" role="status">
            {importNotice}
          </Text>
        ) : null}

        {actors.length === 0 ? (
          <Text size="sm" c="dimmed">
            No machine actors yet: views register their machines as they run, or import a trace.
          </Text>
        ) : (
          <nav aria-label="Actors">
            {actors.map((actor) => (
              <NavLink
                key={actor.id}
                component="button"
                type="button"
                active={actor.id === selected?.id}
                aria-current={actor.id === selected?.id ? 'true' : undefined}
                label={actor.id}
                description={stateLabel(actor.trace.at(-1)?.value)}
                rightSection={<ActorBadge actor={actor} />}
                onClick={() => setSelectedId(actor.id)}
              />
            ))}
          </nav>
        )}

        {selected ? (
          <>
            <Divider />
            <ActorTrace actor={selected} position={position} onStep={stepTo} onExport={() => exportActors([selected])} registry={registry} />
          </>
        ) : null}
      </Stack>
    </Drawer>
  );
}
