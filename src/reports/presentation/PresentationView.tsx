import { ActionIcon, Box, getDefaultZIndex, Group, List, OptionalPortal, Text, Tooltip } from '@mantine/core';
import { useFocusTrap, useMergedRef } from '@mantine/hooks';
import { IconChevronLeft, IconChevronRight, IconX } from '@tabler/icons-react';
import { useActorRef, useSelector } from '@xstate/react';
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import type { MouseEvent } from 'react';
import { PRESENTATION_TITLE_SLIDE_ID } from '../../../models/constants';
import { presentationMachine } from '../../../machines/presentation/presentationMachine';
import { index as indexOf, isFirst, isPresenting, total as totalOf } from '../../../machines/presentation/selectors';
import { useInspection } from '../../inspector/useInspection';
import { toastPresentHotKeys } from '../../notifications/toast';
import type { ReportSection, ReportView } from '../page/reportApi';
import { enterFullscreen, exitFullscreen } from './fullscreen';
import { HOT_KEYS_HELP, presentationEventOfKey, slideIdsOf } from './presentationKeys';
import { SectionSlide, SlideFrame, TitleSlide } from './Slides';

export interface PresentationViewProps {
  /** The report as the page has it (title, period, summary, currency). */
  report: ReportView;
  /** The sections the page shows (the filtered copies while a filter is on), in order: one slide each. */
  sections: readonly ReportSection[];
  /** The report setting display_quarters: Q1..Q4 axis labels. */
  displayQuarters: boolean;
  /** The page's 'Present': the slideshow starts when this turns true. */
  opened: boolean;
  /** The slideshow ended (next on the last slide, Esc, the close button, leaving full screen). */
  onClose(): void;
  /** What the numbers are limited to, named on the title slide ('Plan is Pro', a pinned share link's segment); null: the whole report. */
  scope?: string | null;
}

/** The toast shown on entry: the keys, for the spec's 3.5 s. */
function showHotKeysToast() {
  toastPresentHotKeys(
    <List size="sm" spacing={2} listStyleType="none">
      {HOT_KEYS_HELP.map((line) => (
        <List.Item key={line}>{line}</List.Item>
      ))}
    </List>,
    { title: 'Presentation keys' },
  );
}

/** A mouse press on a control keeps the focus on the stage, so Space goes on instead of pressing the control again. */
const keepFocus = (event: MouseEvent) => event.preventDefault();

/**
 * Presentation mode: the report as a full-screen slideshow (the presentation machine,
 * machines/presentation): a title slide (title, range, summary, key numbers), then one slide
 * per section shown, its chart at the slide height. Right arrow or Space goes on (the last
 * slide ends it), left arrow goes back, Home and End jump, Esc leaves; the buttons in the top
 * bar do the same. The slide shown and its neighbours have their charts drawn (and keep them
 * once drawn), so moving on never shows an empty chart. Rendered inside the page's
 * KeyNumbersProvider.
 */
export function PresentationView({ report, sections, displayQuarters, opened, onClose, scope = null }: PresentationViewProps) {
  const logic = useMemo(
    () =>
      presentationMachine.provide({
        actions: {
          showHotKeys: showHotKeysToast,
          enterFullscreen,
          exitFullscreen,
        },
      }),
    [],
  );
  const actor = useActorRef(logic, { inspect: useInspection('presentation') });
  const presenting = useSelector(actor, isPresenting);
  const slides = useSelector(actor, (snapshot) => snapshot.context.slides);
  const index = useSelector(actor, indexOf);
  const total = useSelector(actor, totalOf);
  const first = useSelector(actor, isFirst);

  const slideIds = useMemo(() => slideIdsOf(sections), [sections]);
  const slideKey = slideIds.join('\n');
  const latestSlides = useRef(slideIds);
  const latestOnClose = useRef(onClose);
  useLayoutEffect(() => {
    latestSlides.current = slideIds;
    latestOnClose.current = onClose;
  });

  // 'Present' starts the slideshow; the page closing it (opened turned false) leaves it.
  useEffect(() => {
    const running = isPresenting(actor.getSnapshot());
    if (opened && !running) actor.send({ type: 'presentation.open', slides: latestSlides.current });
    else if (!opened && running) actor.send({ type: 'presentation.leave' });
  }, [opened, actor]);

  // The report changed underneath: before the browser paints, so the slide shown never blinks.
  useLayoutEffect(() => {
    if (isPresenting(actor.getSnapshot())) actor.send({ type: 'presentation.slidesChanged', slides: slideKey.split('\n') });
  }, [slideKey, actor]);

  // The page hears when the slideshow ends, however it ended.
  useEffect(() => {
    let was = isPresenting(actor.getSnapshot());
    const subscription = actor.subscribe((snapshot) => {
      const now = isPresenting(snapshot);
      if (was && !now) latestOnClose.current();
      was = now;
    });
    return () => subscription.unsubscribe();
  }, [actor]);

  // Keys on the window while presenting (not while typing in a field).
  const overlay = useRef<HTMLDivElement | null>(null);
  useEffect(() => {
    if (!presenting) return;
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.defaultPrevented) return;
      const wanted = presentationEventOfKey(event, totalOf(actor.getSnapshot()) - 1, overlay.current);
      if (!wanted) return;
      event.preventDefault();
      actor.send(wanted);
    };
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, [presenting, actor]);

  // Leaving full screen the browser's way (its own Esc, F11) leaves the slideshow too.
  useEffect(() => {
    if (!presenting) return;
    let entered = Boolean(document.fullscreenElement);
    const onChange = () => {
      if (document.fullscreenElement) entered = true;
      else if (entered) actor.send({ type: 'presentation.leave' });
    };
    document.addEventListener('fullscreenchange', onChange);
    return () => document.removeEventListener('fullscreenchange', onChange);
  }, [presenting, actor]);

  // The focus goes back where it was (the Present button) when the slideshow ends.
  useEffect(() => {
    if (!presenting) return;
    const before = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    return () => before?.focus({ preventScroll: true });
  }, [presenting]);

  // The page gone while presenting (navigated away): full screen is given back. React's
  // development double effects remount at once, so that check waits a microtask.
  const mounted = useRef(false);
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
      queueMicrotask(() => {
        if (!mounted.current && isPresenting(actor.getSnapshot())) exitFullscreen();
      });
    };
  }, [actor]);

  // Charts drawn: the slide shown and its neighbours, and every slide drawn once (kept).
  const near = useMemo(() => [slides[index - 1], slides[index], slides[index + 1]].filter((id): id is string => id !== undefined), [slides, index]);
  const [kept, setKept] = useState<ReadonlySet<string>>(() => new Set());
  useEffect(() => {
    if (!presenting) setKept((current) => (current.size === 0 ? current : new Set()));
    else setKept((current) => (near.every((id) => current.has(id)) ? current : new Set([...current, ...near])));
  }, [presenting, near]);

  const trapFocus = useFocusTrap(presenting);
  const overlayRef = useMergedRef(trapFocus, overlay);

  if (!presenting) return null;
  const sectionsById = new Map(sections.map((section) => [section.id, section]));
  const drawn = (id: string) => kept.has(id) || near.includes(id);

  return (
    <OptionalPortal>
      <Box
        role="dialog"
        aria-modal="true"
        aria-label="Presentation"
        ref={overlayRef}
        pos="fixed"
        inset={0}
        style={{
          zIndex: getDefaultZIndex('modal'),
          display: 'flex',
          flexDirection: 'column',
          background: 'var(--mantine-color-body)',
          color: 'var(--mantine-color-text)',
        }}
      >
        <Box tabIndex={-1} data-autofocus style={{ position: 'relative', flex: 1, minHeight: 0, outline: 'none' }}>
          {slides.map((id, position) => {
            const shown = position === index;
            if (id === PRESENTATION_TITLE_SLIDE_ID)
              return (
                <SlideFrame key={id} id={id} index={position} total={total} shown={shown}>
                  <TitleSlide report={report} sections={sections} scope={scope} />
                </SlideFrame>
              );
            const section = sectionsById.get(id);
            if (!section) return null;
            return (
              <SlideFrame key={id} id={id} index={position} total={total} shown={shown}>
                <SectionSlide section={section} displayQuarters={displayQuarters} drawChart={drawn(id)} />
              </SlideFrame>
            );
          })}
        </Box>
        <Group justify="space-between" wrap="nowrap" gap="md" px="lg" py={6} style={{ borderTop: '1px solid var(--mantine-color-default-border)', flexShrink: 0 }}>
          <Text size="sm" c="dimmed" truncate="end" miw={0}>
            {report.title || 'Untitled report'}
          </Text>
          <Group gap="xs" wrap="nowrap" style={{ flexShrink: 0 }}>
            <Text size="sm" c="dimmed" data-testid="slide-counter" style={{ fontVariantNumeric: 'tabular-nums' }}>
              {index + 1} / {total}
            </Text>
            <Tooltip label="Previous (←)">
              <ActionIcon variant="default" size="lg" aria-label="Previous slide" disabled={first} onMouseDown={keepFocus} onClick={() => actor.send({ type: 'presentation.previous' })}>
                <IconChevronLeft size={18} />
              </ActionIcon>
            </Tooltip>
            <Tooltip label="Next (→ or Space)">
              <ActionIcon variant="default" size="lg" aria-label="Next slide" onMouseDown={keepFocus} onClick={() => actor.send({ type: 'presentation.next' })}>
                <IconChevronRight size={18} />
              </ActionIcon>
            </Tooltip>
            <Tooltip label="Leave (Esc)">
              <ActionIcon variant="default" size="lg" aria-label="Leave presentation" onMouseDown={keepFocus} onClick={() => actor.send({ type: 'presentation.leave' })}>
                <IconX size={18} />
              </ActionIcon>
            </Tooltip>
          </Group>
        </Group>
      </Box>
    </OptionalPortal>
  );
}
