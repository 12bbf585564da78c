import {
  App,
  Button,
  Col,
  DatePicker,
  Divider,
  Form,
  Input,
  InputNumber,
  Modal,
  Row,
  Select,
  Space,
} from 'antd'
import type { Rule } from 'antd/es/form'
import { useQuery } from '@tanstack/react-query'
import { useEffect, useMemo, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { createStation, updateStation, type Station } from '../../../api/station/station'
import { formSeed } from '../../../api/queryClient'
import { stationDetailQuery } from '../../../api/station/queries'
import { ownerOptionsQuery } from '../../../api/user/queries'
import type { MessageKey, TextOption } from '../../../components/crud/types'
import { dictOptions } from '../../../components/crud/useFieldOptions'
import MapPicker from '../../../components/map/MapPicker'
import { locationProblem } from '../../../components/map/coords'
import { useDict } from '../../../hooks/useDict'
import { checkPhone } from '../../../utils/validate'
import ImageField from './ImageField'
import { stationDicts, toBody, toFormValues, type StationFormValues } from './logic'
import RegionCascader from './RegionCascader'

export type StationFormMode = 'add' | 'edit' | 'view'

interface Props {
  mode: StationFormMode
  /** The station to edit or view (its detail is loaded); none when adding. */
  stationId?: string
  open: boolean
  onClose: () => void
  /** After a save, with the station's id. */
  onSaved?: (id: string) => void
}

type DictField = keyof typeof stationDicts

function DictSelect({
  field,
  ...rest
}: {
  field: DictField
  value?: string
  onChange?: (v: string) => void
  disabled?: boolean
}) {
  const { t } = useTranslation()
  const entries = useDict(stationDicts[field])
  const options = useMemo(() => dictOptions(entries), [entries])
  return (
    <Select
      data-testid={`field-${field}`}
      allowClear
      options={options}
      placeholder={t('crud.selectPlaceholder', { label: t(`stationUi.field.${field}`) })}
      {...rest}
    />
  )
}

const textMax: Partial<Record<string, number>> = {
  name: 100,
  address: 255,
  contact: 50,
  installer: 50,
  ownerName: 50,
  gatewayId: 64,
  gatewaySn: 64,
  remark1: 500,
  remark2: 500,
  remark3: 500,
}

/**
 * Add / edit / view a station: every station field the server accepts (at most 5 images), dictionary selects,
 * province/city/district, images and the location on a map. The server checks everything again
 * (its messages toast and keep the dialog open).
 */
const newStation = {} as Station
const noOwners: TextOption[] = []

export default function StationForm({ mode, stationId, open, onClose, onSaved }: Props) {
  const { t } = useTranslation()
  const { message } = App.useApp()
  const [form] = Form.useForm<StationFormValues>()
  const [saving, setSaving] = useState(false)
  const readOnly = mode === 'view'
  const close = useRef(onClose)
  useEffect(() => {
    close.current = onClose
  })

  const editing = mode !== 'add' && Boolean(stationId)
  const detail = useQuery({
    ...stationDetailQuery(stationId ?? ''),
    ...formSeed,
    enabled: editing,
  })
  const loaded: Station | null = editing ? (detail.data ?? null) : newStation
  // Shown by the request client; nothing to edit.
  useEffect(() => {
    if (detail.isError) close.current()
  }, [detail.isError])
  // An optional choice: without the owner list the field stays empty.
  const owners = useQuery(ownerOptionsQuery()).data ?? noOwners

  const text = (name: string): Rule[] => {
    const max = textMax[name]
    return max
      ? [
          {
            max,
            message: t('crud.maxLength', {
              label: t(`stationUi.field.${name}` as MessageKey),
              max,
            }),
          },
        ]
      : []
  }
  const phoneRule: Rule = {
    validator: (_r, value: string | undefined) => {
      if (value === undefined || value === null || value === '') return Promise.resolve()
      const problem = checkPhone(value)
      return problem ? Promise.reject(new Error(t(problem))) : Promise.resolve()
    },
  }
  const locationRule: Rule = {
    validator: (_r, value: StationFormValues['location']) => {
      const problem = locationProblem(value)
      return problem ? Promise.reject(new Error(t(`stationUi.map.${problem}`))) : Promise.resolve()
    },
  }

  const save = async () => {
    let values: StationFormValues
    try {
      values = await form.validateFields()
    } catch {
      return // the form shows the messages
    }
    setSaving(true)
    try {
      if (mode === 'add') {
        const id = await createStation(toBody(values))
        void message.success(t('crud.added'))
        onSaved?.(id)
      } else if (stationId) {
        await updateStation({ ...toBody(values, stationId), id: stationId })
        void message.success(t('crud.updated'))
        onSaved?.(stationId)
      }
      onClose()
    } catch {
      // shown by the request client; the dialog stays open
    } finally {
      setSaving(false)
    }
  }

  const item = (name: string, input: React.ReactNode, rules: Rule[] = [], span = 12) => (
    <Col xs={24} md={span} key={name}>
      <Form.Item
        name={name}
        label={t(`stationUi.field.${name}` as MessageKey)}
        rules={rules}
        validateTrigger="onBlur"
      >
        {input}
      </Form.Item>
    </Col>
  )
  const input = (name: string) => (
    <Input
      data-testid={`field-${name}`}
      placeholder={t('crud.placeholder', { label: t(`stationUi.field.${name}` as MessageKey) })}
    />
  )
  const number = (name: string, min: number, max: number, precision: number) => (
    <InputNumber
      data-testid={`field-${name}`}
      min={min}
      max={max}
      precision={precision}
      style={{ width: '100%' }}
    />
  )
  const dict = (field: DictField) => item(field, <DictSelect field={field} />)

  return (
    <Modal
      open={open}
      title={t(
        mode === 'add'
          ? 'stationUi.addTitle'
          : mode === 'edit'
            ? 'stationUi.editTitle'
            : 'stationUi.viewTitle',
      )}
      width={960}
      destroyOnHidden
      mask={{ closable: false }}
      onCancel={onClose}
      wrapClassName="station-dialog"
      loading={loaded === null}
      footer={
        readOnly ? (
          <Button onClick={onClose} data-testid="crud-close">
            {t('crud.close')}
          </Button>
        ) : (
          <Space>
            <Button onClick={onClose} data-testid="crud-cancel">
              {t('crud.cancel')}
            </Button>
            <Button
              type="primary"
              loading={saving}
              onClick={() => void save()}
              data-testid="crud-submit"
            >
              {t('crud.submit')}
            </Button>
          </Space>
        )
      }
    >
      {loaded && (
        <Form
          form={form}
          layout="vertical"
          name="station-form"
          disabled={readOnly}
          initialValues={toFormValues(loaded)}
          data-testid="station-form"
        >
          <Divider titlePlacement="start">{t('stationUi.section.basic')}</Divider>
          <Row gutter={16}>
            {item('name', input('name'), [
              { required: true, whitespace: true, message: t('stationUi.field.nameRequired') },
              ...text('name'),
            ])}
            {dict('stationType')}
            {dict('state')}
            {item(
              'gridConnectionTime',
              <DatePicker
                data-testid="field-gridConnectionTime"
                showTime
                style={{ width: '100%' }}
              />,
            )}
            {item('region', <RegionCascader disabled={readOnly} />)}
            {item('address', input('address'), text('address'))}
            {item('contact', input('contact'), text('contact'))}
            {item('contactPhone', input('contactPhone'), [phoneRule])}
          </Row>
          <Divider titlePlacement="start">{t('stationUi.section.technical')}</Divider>
          <Row gutter={16}>
            {item('capacity', number('capacity', 0, 100_000_000, 4), [], 8)}
            {item('componentCapacity', number('componentCapacity', 0, 100_000_000, 4), [], 8)}
            {item('componentCount', number('componentCount', 0, 100_000_000, 0), [], 8)}
            {item('azimuth', number('azimuth', -180, 360, 2), [], 8)}
            {item('inclination', number('inclination', 0, 90, 2), [], 8)}
            {item('utcOffsetMinutes', number('utcOffsetMinutes', -720, 840, 0), [], 8)}
            {dict('inverterManufacturer')}
            {dict('connectedType')}
            {item('gatewayId', input('gatewayId'), text('gatewayId'))}
            {item('gatewaySn', input('gatewaySn'), text('gatewaySn'))}
          </Row>
          <Divider titlePlacement="start">{t('stationUi.section.business')}</Divider>
          <Row gutter={16}>
            {dict('contributionWay')}
            {dict('electricityPriceType')}
            {item('feedInTariff', number('feedInTariff', 0, 100, 4))}
            {item(
              'ownerId',
              <Select
                data-testid="field-ownerId"
                allowClear
                showSearch={{ optionFilterProp: 'label' }}
                options={owners}
                placeholder={t('crud.selectPlaceholder', { label: t('stationUi.field.ownerId') })}
              />,
            )}
            {item('ownerName', input('ownerName'), text('ownerName'))}
            {item('ownerPhone', input('ownerPhone'), [phoneRule])}
            {item('installer', input('installer'), text('installer'))}
            {item('installerPhone', input('installerPhone'), [phoneRule])}
            {(['remark1', 'remark2', 'remark3'] as const).map((name) =>
              item(name, <Input.TextArea data-testid={`field-${name}`} rows={2} />, text(name), 8),
            )}
          </Row>
          <Divider titlePlacement="start">{t('stationUi.section.images')}</Divider>
          <Form.Item name="images">
            <ImageField disabled={readOnly} />
          </Form.Item>
          <Divider titlePlacement="start">{t('stationUi.section.location')}</Divider>
          <Form.Item name="location" rules={[locationRule]} validateTrigger="onChange">
            <MapPicker disabled={readOnly} />
          </Form.Item>
        </Form>
      )}
    </Modal>
  )
}
