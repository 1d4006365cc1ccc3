export {
  addDays,
  addMonths,
  type CalendarMonth,
  dayIn,
  daysInMonth,
  type IsoDate,
  isCalendarDate,
  localDate,
  localDateTime,
  endOfLocalDay,
  instantOfLocalDateTime,
  localDateTimeWithOffset,
  startOfLocalDay,
  monthOf,
  monthsBetween,
  sameLocalDay,
} from './calendar';
export { type Clock, type SimulatedClock, simulatedClock, systemClock } from './clock';
