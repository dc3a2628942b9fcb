import { ApiError } from '../http/errors';

/** Collects the validation problems of one request; answered together as one 422. */
export class Problems {
  private readonly entries: Array<{ source: { pointer: string }; detail: string }> = [];

  add(pointer: string, detail: string | undefined): this {
    if (detail !== undefined) this.entries.push({ source: { pointer }, detail });
    return this;
  }

  get empty(): boolean {
    return this.entries.length === 0;
  }

  /** The 422 answering every problem added. */
  error(): ApiError {
    return new ApiError(422, this.entries);
  }

  /** Throws the 422 when any problem was added. */
  check(): void {
    if (!this.empty) throw this.error();
  }
}

export const NAME_MAX_LENGTH = 100;
export const NAME_TOO_LONG = `is too long (maximum is ${NAME_MAX_LENGTH} characters)`;
