import { Box, Group, Kbd, Loader, Modal, ScrollArea, Skeleton, Stack, Switch, Text, TextInput, UnstyledButton } from '@mantine/core';
import { useDebouncedValue, useId } from '@mantine/hooks';
import { IconSearch } from '@tabler/icons-react';
import { useMemo, useState } from 'react';
import type { KeyboardEvent } from 'react';
import { FILTER_TEXT_VISIBLE_VALUES, SEARCH_DEBOUNCE_MS } from '../../../models/constants';
import {
  FILTER_FETCH_FAILURE,
  FILTER_NO_RESULTS,
  filterItemGroup,
  filterItemKey,
  filterItemLabel,
  filterItemValue,
  matchesFilterText,
} from '../../../models/reportFilter';
import type { FilterItem } from '../../../models/reportFilter';
import { useDealOwners, useProducts, useSegmentValues } from './filtersApi';
import classes from './FilterPicker.module.css';
import { RetryAlert } from '../../components/RetryAlert';

interface FilterPickerProps {
  opened: boolean;
  onClose(): void;
  /** The report's secret: its segment values are read by it. */
  secret: string;
  /** Deal owners and products are offered to signed-in users of the account only. */
  signedIn: boolean;
  onApply(item: FilterItem): void;
}

/**
 * 'Filter report' (second spec document, sections 2, 5, 7, 8): a search over the report's
 * segment values, the account's deal owners and products, grouped by segment name, 'Deal owner'
 * and 'Product'. Arrow keys move through the options, Enter applies the active one; 'Exclude'
 * (or Shift+Enter) applies it negated ('is not').
 */
export function FilterPicker({ opened, onClose, secret, signedIn, onApply }: FilterPickerProps) {
  return (
    <Modal
      opened={opened}
      onClose={onClose}
      size="lg"
      title={
        <Text component="span" fw={650} fz="lg">
          Filter report
        </Text>
      }
    >
      <PickerContent
        secret={secret}
        signedIn={signedIn}
        onPick={(item) => {
          onApply(item);
          onClose();
        }}
      />
    </Modal>
  );
}

interface FilterGroup {
  name: string;
  items: FilterItem[];
}

/** Items in their groups, in the order the groups first appear. */
function grouped(items: readonly FilterItem[]): FilterGroup[] {
  const groups = new Map<string, FilterItem[]>();
  for (const item of items) {
    const name = filterItemGroup(item);
    groups.set(name, [...(groups.get(name) ?? []), item]);
  }
  return [...groups].map(([name, members]) => ({ name, items: members }));
}

function PickerContent({ secret, signedIn, onPick }: { secret: string; signedIn: boolean; onPick(item: FilterItem): void }) {
  const [text, setText] = useState('');
  const [negated, setNegated] = useState(false);
  const [active, setActive] = useState(0);
  const listId = useId();
  // The server narrows its lists by the text too (it answers at most its search limit), a little
  // after typing stops; meanwhile the lists already loaded are narrowed here at once.
  const [serverText] = useDebouncedValue(text.trim(), SEARCH_DEBOUNCE_MS);
  const segments = useSegmentValues(secret, serverText);
  const owners = useDealOwners(signedIn);
  const products = useProducts(serverText, signedIn);
  const queries = signedIn ? [segments, owners, products] : [segments];
  const loading = queries.some((query) => query.isPending && query.fetchStatus !== 'idle');
  const searching = !loading && queries.some((query) => query.isFetching);
  const failed = queries.filter((query) => query.isError);

  const visible = useMemo(() => {
    const all: FilterItem[] = [...(segments.data ?? []), ...(signedIn ? (owners.data ?? []) : []), ...(signedIn ? (products.data ?? []) : [])];
    const matching = all.filter((item) => matchesFilterText(item, text));
    return text.trim() === '' ? matching : matching.slice(0, FILTER_TEXT_VISIBLE_VALUES);
  }, [segments.data, owners.data, products.data, signedIn, text]);
  const groups = useMemo(() => grouped(visible), [visible]);
  // The flat order the arrow keys walk: the groups' items, group by group.
  const ordered = useMemo(() => groups.flatMap((group) => group.items), [groups]);
  const activeIndex = ordered.length === 0 ? -1 : Math.min(active, ordered.length - 1);
  const optionId = (index: number) => `${listId}-option-${index}`;

  const pick = (item: FilterItem, negate = negated) => onPick({ ...item, negated: negate });

  const handleKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    const last = ordered.length - 1;
    if (event.key === 'ArrowDown') {
      event.preventDefault();
      setActive(activeIndex >= last ? 0 : activeIndex + 1);
    } else if (event.key === 'ArrowUp') {
      event.preventDefault();
      setActive(activeIndex <= 0 ? last : activeIndex - 1);
    } else if (event.key === 'Home' && event.ctrlKey) {
      event.preventDefault();
      setActive(0);
    } else if (event.key === 'End' && event.ctrlKey) {
      event.preventDefault();
      setActive(last);
    } else if (event.key === 'Enter') {
      event.preventDefault();
      const item = ordered[activeIndex];
      if (item) pick(item, event.shiftKey ? !negated : negated);
    }
  };

  let index = -1;
  return (
    <Stack gap="md">
      <TextInput
        placeholder="Search segments, deal owners and products"
        aria-label="Search filters"
        data-autofocus
        leftSection={<IconSearch size={16} />}
        rightSection={searching ? <Loader size="xs" aria-label="Searching" /> : null}
        value={text}
        onChange={(event) => {
          setText(event.currentTarget.value);
          setActive(0);
        }}
        onKeyDown={handleKeyDown}
        role="combobox"
        aria-expanded
        aria-controls={listId}
        aria-autocomplete="list"
        aria-activedescendant={activeIndex >= 0 ? optionId(activeIndex) : undefined}
      />
      <Group justify="space-between" gap="sm">
        <Switch
          label="Exclude"
          aria-label="Exclude"
          description={negated ? 'Shows everything except the picked value (is not)' : 'Shows only the picked value (is)'}
          checked={negated}
          onChange={(event) => setNegated(event.currentTarget.checked)}
        />
        <Text size="xs" c="dimmed">
          <Kbd size="xs">↑</Kbd> <Kbd size="xs">↓</Kbd> to move, <Kbd size="xs">Enter</Kbd> to apply, <Kbd size="xs">Shift</Kbd>+
          <Kbd size="xs">Enter</Kbd> to exclude
        </Text>
      </Group>
      {failed.length > 0 ? (
        <RetryAlert message={FILTER_FETCH_FAILURE} onRetry={() => failed.forEach((query) => void query.refetch())} />
      ) : null}
      <ScrollArea.Autosize mah="50vh" type="auto" offsetScrollbars>
        <Box id={listId} role="listbox" aria-label="Filters" className={classes.list}>
          {groups.map((group) => (
            <Box key={group.name} role="group" aria-label={group.name} className={classes.group}>
              <Text size="xs" fw={600} c="dimmed" tt="uppercase" px="sm" py={4} aria-hidden>
                {group.name}
              </Text>
              {group.items.map((item) => {
                index += 1;
                const position = index;
                const selected = position === activeIndex;
                return (
                  <UnstyledButton
                    key={filterItemKey(item)}
                    id={optionId(position)}
                    role="option"
                    aria-selected={selected}
                    aria-label={filterItemValue(item)}
                    title={filterItemLabel({ ...item, negated })}
                    tabIndex={-1}
                    className={classes.option}
                    data-active={selected || undefined}
                    onMouseEnter={() => setActive(position)}
                    onMouseDown={(event) => event.preventDefault()}
                    onClick={() => pick(item)}
                  >
                    <Text size="sm" truncate="end">
                      {filterItemValue(item)}
                    </Text>
                    {selected ? (
                      <Text size="xs" c="dimmed" className={classes.hint} aria-hidden>
                        {negated ? 'is not' : 'is'}
                      </Text>
                    ) : null}
                  </UnstyledButton>
                );
              })}
            </Box>
          ))}
        </Box>
        {loading ? (
          <Stack gap="xs" aria-label="Loading filters" mt={groups.length > 0 ? 'sm' : 0}>
            <Skeleton height={14} width="30%" />
            <Skeleton height={30} />
            <Skeleton height={30} />
            <Skeleton height={30} />
          </Stack>
        ) : null}
        {!loading && failed.length === 0 && ordered.length === 0 ? (
          <Text size="sm" c="dimmed" ta="center" py="lg">
            {FILTER_NO_RESULTS}
          </Text>
        ) : null}
      </ScrollArea.Autosize>
    </Stack>
  );
}
