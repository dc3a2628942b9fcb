import { useCallback, useEffect, useRef, useState } from 'react';
import { BUTTON_FAILURE_WIGGLE_MS } from '../../../models/constants';
import classes from './ButtonWiggle.module.css';

/**
 * The spec's failed button action: the button wiggles for BUTTON_FAILURE_WIGGLE_MS. Spread
 * `wiggleProps` on the button and call `wiggle()` when its action fails.
 */
export function useButtonWiggle() {
  const [wiggling, setWiggling] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);

  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current);
    },
    [],
  );

  const wiggle = useCallback(() => {
    if (timer.current) clearTimeout(timer.current);
    setWiggling(true);
    timer.current = setTimeout(() => setWiggling(false), BUTTON_FAILURE_WIGGLE_MS);
  }, []);

  const wiggleProps = { className: wiggling ? classes.wiggle : undefined, 'data-wiggling': wiggling || undefined };
  return { wiggle, wiggleProps };
}
