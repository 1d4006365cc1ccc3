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
  localDateTimeWithOffset,
  startOfLocalDay,
  monthOf,
  monthsBetween,
} from './calendar';
export { type Clock, type SimulatedClock, simulatedClock, systemClock } from './clock';
